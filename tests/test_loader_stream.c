/* Programs' standard streams through the ELF loader (test_diff_stream.c has the rest). */
#include <string.h>

#include "btf/vmlinux.h"
#include "test.h"
#include "userbpf.h"
#include "userbpf/loader.h"

/* BPF_PROG_STREAM_READ_BY_FD (6.17's attr: buffer, length, stream id, program fd). */
static int stream_read(int fd, uint32_t id, char *buf, uint32_t len)
{
	uint32_t a[40] = { 0 };
	uint64_t p = (uint64_t)(uintptr_t)buf;

	memcpy(a, &p, 8);
	a[2] = len;
	a[3] = id;
	a[4] = (uint32_t)fd;
	return bpf(37, (union bpf_attr *)a, sizeof(a));
}

/* BPF_PROG_TEST_RUN of fd on len bytes of pkt: the call's result, *ret the program's. */
static int test_run(int fd, const void *pkt, uint32_t len, uint32_t *ret)
{
	union bpf_attr a;
	int r;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)fd;
	a.test.data_in = (uint64_t)(uintptr_t)pkt;
	a.test.data_size_in = len;
	r = bpf(BPF_PROG_TEST_RUN, &a, sizeof(a));
	*ret = a.test.retval;
	return r;
}

/* The clang-compiled corpus program socket_stream_printk (libbpf's bpf_stream_printk(), its
 * format in .rodata) through userbpf's ELF loader: a run leaves its line on stdout, a short
 * packet its complaint on stderr.  (Its verifier logs are compared with the kernel's in the
 * corpus test.) */
TEST(loader_stream_printk)
{
	static const char path[] = LOADER_OBJ_DIR "/tests/corpus/socket_stream_printk.bpf.o";
	struct userbpf_object *obj;
	uint8_t pkt[100] = { 0 };
	char buf[256];
	uint32_t ret = 0;
	int fd, n;

	if (!btf_vmlinux() || btf_find_func(btf_vmlinux(), "bpf_stream_vprintk_impl") <= 0)
		SKIP("no bpf_stream_vprintk_impl in the kernel's BTF (Linux 6.18+)");
	REQUIRE(!userbpf_object_open_file(path, NULL, &obj));
	REQUIRE(!userbpf_object_load(obj));
	fd = userbpf_program_fd(userbpf_object_program(obj, 0));
	pkt[12] = 0x08; /* (IPv4) */
	pkt[14] = 0x12; /* (the first bytes after the Ethernet header) */
	pkt[15] = 0x34;
	CHECK_EQ(test_run(fd, pkt, sizeof(pkt), &ret), 0);
	CHECK_EQ(ret, 86u);
	n = stream_read(fd, 1, buf, sizeof(buf) - 1);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = 0;
	if (strcmp(buf, "len 86 proto 800 first 1234\n"))
		test_fail(__FILE__, __LINE__, "stdout: [%s]", buf);
	CHECK_EQ(test_run(fd, pkt, 64, &ret), 0); /* (50 bytes past the header: short) */
	CHECK_EQ(ret, 0u); /* (what the kfunc returned) */
	n = stream_read(fd, 2, buf, sizeof(buf) - 1);
	CHECK(n > 0);
	buf[n > 0 ? n : 0] = 0;
	CHECK(!strcmp(buf, "short packet: 50 bytes\n"));
	CHECK_EQ(stream_read(fd, 1, buf, sizeof(buf)), 0);
	userbpf_object_close(obj);
}
