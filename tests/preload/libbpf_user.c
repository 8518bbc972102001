/* A libbpf user, as a unit test of BPF code is written: libbpf's low-level map calls and pins,
 * then three example objects (one with global data) opened and loaded by libbpf (every feature probe of its own included), run with
 * bpf_prog_test_run_opts() and read back through libbpf's map calls.  It knows nothing of
 * userbpf: tests/test_preload.c runs it with LD_PRELOAD=libuserbpf-preload.so (and on the kernel
 * where it may) and reads what it prints.
 *
 * Usage: libbpf-user OBJDIR.  Prints "backend: userbpf" or "backend: kernel" (what a map fd
 * is: userbpf's memfd or the kernel's anon inode), then one "ok ..." line per check, or a
 * "FAIL ..." line and exit status 1.
 * libbpf-user --load OBJ...: opens and loads each object with libbpf, its messages silenced, and
 * prints "load OBJ: ERR" (0 or libbpf's negative errno) for each.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <stdbool.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "core_dump.h"
#include "fd_kind.h"

static int failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			printf("ok   ");                                                           \
		} else {                                                                           \
			printf("FAIL ");                                                           \
			failed = 1;                                                                \
		}                                                                                  \
		printf(__VA_ARGS__);                                                               \
		putchar('\n');                                                                     \
	} while (0)

/* An Ethernet + IPv4 + TCP frame to dport, 64 bytes. */
static void tcp_frame(unsigned char *f, unsigned short dport)
{
	struct ethhdr *eth = (struct ethhdr *)f;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct tcphdr *tcp = (struct tcphdr *)(ip + 1);

	memset(f, 0, 64);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->protocol = IPPROTO_TCP;
	ip->tot_len = htons(64 - sizeof(*eth));
	tcp->dest = htons(dport);
}

/* bpf_obj_pin() and bpf_obj_get() in a temporary directory: on the kernel, a BPF filesystem
 * mounted there (root); "skip" if it cannot be. */
static void pin(int fd)
{
	char dir[] = "/tmp/libbpf-user-XXXXXX", path[64];
	bool kernel = !strcmp(fd_kind(fd), "kernel");
	unsigned int key = 3;
	unsigned long long v = 0;
	int got;

	if (!mkdtemp(dir)) {
		printf("skip pin: mkdtemp: %s\n", strerror(errno));
		return;
	}
	if (kernel && mount("bpf", dir, "bpf", 0, "mode=0700")) {
		printf("skip pin: mount -t bpf: %s\n", strerror(errno));
		rmdir(dir);
		return;
	}
	snprintf(path, sizeof(path), "%s/counts", dir);
	CHECK(!bpf_obj_pin(fd, path), "bpf_obj_pin");
	got = bpf_obj_get(path);
	CHECK(got >= 0 && !bpf_map_lookup_elem(got, &key, &v) && v == 300,
	      "bpf_obj_get, then a lookup through its fd: %llu", v);
	if (got >= 0)
		close(got);
	CHECK(!unlink(path), "unlink the pin");
	CHECK(bpf_obj_get(path) == -ENOENT, "bpf_obj_get after unlink: -ENOENT");
	if (kernel)
		umount2(dir, MNT_DETACH);
	rmdir(dir);
}

static void low_level(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "counts", 4, 8, 16, NULL);
	unsigned int key, next, n = 0;
	unsigned long long v;

	if (fd < 0) {
		CHECK(0, "bpf_map_create: %s", strerror(-fd));
		return;
	}
	printf("backend: %s\n", fd_kind(fd));
	for (key = 0; key < 10; key++) {
		v = key * 100ull;
		if (bpf_map_update_elem(fd, &key, &v, BPF_NOEXIST))
			break;
	}
	CHECK(key == 10, "bpf_map_update_elem: 10 keys");
	key = 10;
	v = 0;
	CHECK(bpf_map_update_elem(fd, &key, &v, BPF_EXIST) == -ENOENT,
	      "bpf_map_update_elem BPF_EXIST of a missing key: -ENOENT");
	key = 7;
	CHECK(!bpf_map_lookup_elem(fd, &key, &v) && v == 700, "bpf_map_lookup_elem: 700");
	CHECK(!bpf_map_delete_elem(fd, &key), "bpf_map_delete_elem");
	CHECK(bpf_map_lookup_elem(fd, &key, &v) == -ENOENT, "lookup after delete: -ENOENT");
	for (int err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &next, &next))
		n++;
	CHECK(n == 9, "bpf_map_get_next_key walk: %u keys", n);
	pin(fd);
	close(fd);
}

static void portfilter(const char *dir)
{
	char path[512];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *blocked, *verdicts;
	unsigned char frame[64];
	unsigned short port = htons(80);
	unsigned char one = 1;
	unsigned int drop = XDP_DROP, pass = XDP_PASS;
	unsigned long long n_drop = 0, n_pass = 0;
	int err;

	snprintf(path, sizeof(path), "%s/examples/xdp_portfilter.bpf.o", dir);
	obj = bpf_object__open_file(path, NULL);
	err = libbpf_get_error(obj);
	CHECK(!err, "bpf_object__open_file xdp_portfilter");
	if (err)
		return;
	err = bpf_object__load(obj);
	CHECK(!err, "bpf_object__load xdp_portfilter: %d", err);
	prog = bpf_object__find_program_by_name(obj, "xdp_portfilter");
	blocked = bpf_object__find_map_by_name(obj, "blocked_ports");
	verdicts = bpf_object__find_map_by_name(obj, "verdicts");
	if (err || !prog || !blocked || !verdicts) {
		CHECK(0, "program and maps found");
		bpf_object__close(obj);
		return;
	}
	CHECK(!bpf_map__update_elem(blocked, &port, sizeof(port), &one, sizeof(one), BPF_ANY),
	      "bpf_map__update_elem blocked_ports[80]");
	for (int i = 0; i < 6; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = sizeof(frame),
			    .repeat = 1);
		unsigned short dport = i % 2 ? 80 : 8080;

		tcp_frame(frame, dport);
		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);
		CHECK(!err && o.retval == (dport == 80 ? XDP_DROP : XDP_PASS),
		      "bpf_prog_test_run_opts: TCP to %u: retval %u", dport, o.retval);
	}
	CHECK(!bpf_map__lookup_elem(verdicts, &drop, 4, &n_drop, 8, 0) &&
		      !bpf_map__lookup_elem(verdicts, &pass, 4, &n_pass, 8, 0) && n_drop == 3 &&
		      n_pass == 3,
	      "verdicts: %llu dropped, %llu passed", n_drop, n_pass);
	bpf_object__close(obj);
}

/* sockex1 counts each packet's length in my_map[IP protocol]. */
static void sockex1(const char *dir)
{
	char path[512];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *m;
	unsigned char pkt[14 + 64];
	unsigned int key = IPPROTO_TCP;
	unsigned long long bytes = 0;
	int err;

	snprintf(path, sizeof(path), "%s/examples/sockex1.bpf.o", dir);
	obj = bpf_object__open_file(path, NULL);
	err = libbpf_get_error(obj);
	if (!err)
		err = bpf_object__load(obj);
	CHECK(!err, "bpf_object__open_file + load sockex1: %d", err);
	if (err)
		return;
	prog = bpf_object__next_program(obj, NULL);
	m = bpf_object__find_map_by_name(obj, "my_map");
	/* a socket filter's test run takes the frame with a 14-byte header it pulls */
	memset(pkt, 0, 14);
	tcp_frame(pkt + 14, 22);
	pkt[12] = 0x08;
	for (int i = 0; i < 4 && prog && m; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);

		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);
		if (err)
			break;
	}
	CHECK(!err && m && !bpf_map__lookup_elem(m, &key, 4, &bytes, 8, 0) && bytes == 4 * 64,
	      "sockex1: my_map[TCP] = %llu bytes after 4 frames", bytes);
	bpf_object__close(obj);
}

/* The map of obj whose name ends with suffix (libbpf names global data "<object>.<section>"). */
static struct bpf_map *map_ending(struct bpf_object *obj, const char *suffix)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		const char *n = bpf_map__name(m);

		if (strlen(n) >= strlen(suffix) && !strcmp(n + strlen(n) - strlen(suffix), suffix))
			return m;
	}
	return NULL;
}

/* globals: a `const volatile` setting written before load (libbpf's copy of .rodata), then the
 * .bss counters after two runs. */
static void globals(const char *dir)
{
	char path[512];
	struct bpf_object *obj;
	struct bpf_map *ro, *bss;
	struct bpf_program *prog;
	unsigned char pkt[14 + 50];
	unsigned int *rodata;
	unsigned long long counters[2] = { 0, 0 };
	unsigned int zero = 0;
	size_t size = 0;
	int err;

	snprintf(path, sizeof(path), "%s/examples/globals.bpf.o", dir);
	obj = bpf_object__open_file(path, NULL);
	err = libbpf_get_error(obj);
	CHECK(!err, "bpf_object__open_file globals");
	if (err)
		return;
	ro = map_ending(obj, ".rodata");
	bss = map_ending(obj, ".bss");
	rodata = ro ? (unsigned int *)bpf_map__initial_value(ro, &size) : NULL;
	CHECK(rodata && size == 8 && rodata[0] == 3, "the .rodata before load: multiplier %u",
	      rodata ? rodata[0] : 0);
	if (!rodata || !bss) {
		bpf_object__close(obj);
		return;
	}
	rodata[0] = 5; /* multiplier */
	err = bpf_object__load(obj);
	CHECK(!err, "bpf_object__load globals: %d", err);
	prog = bpf_object__next_program(obj, NULL);
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08;
	for (int i = 0; i < 2 && !err && prog; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = pkt, .data_size_in = sizeof(pkt),
			    .repeat = 1);

		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);
		CHECK(!err && o.retval == ((50 * 5 + 100 + 10 * i) & 0xff),
		      "globals run %d: retval %u", i, o.retval);
	}
	CHECK(!bpf_map__lookup_elem(bss, &zero, 4, counters, 16, 0) && counters[0] == 2 &&
		      counters[1] == 50 * 5 + 110,
	      "the .bss after the runs: calls %llu, last %llu", counters[0], counters[1]);
	bpf_object__close(obj);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static int load_each(int n, char **paths)
{
	libbpf_set_print(quiet);
	for (int i = 0; i < n; i++) {
		struct bpf_object *obj = bpf_object__open_file(paths[i], NULL);
		int err = (int)libbpf_get_error(obj);

		if (!err) {
			err = bpf_object__load(obj);
			bpf_object__close(obj);
		}
		printf("load %s: %d\n", strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i],
		       err);
	}
	return 0;
}

/* --core OBJ [BTF]: OBJ loaded by libbpf (CO-RE against the kernel's BTF, or the file BTF;
 * --core-kconfig OBJ TEXT: with TEXT as its kconfig option),
 * then its first program's instructions as libbpf relocated them ("insn N code dst src off imm",
 * map references' fds as 0), its test run on a UDP frame ("retval N") and the array "out"
 * ("out K V").  Status 1 when libbpf fails. */
static int core_dump(const char *path, const char *btf, const char *kconfig)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = btf, .kconfig = kconfig);
	unsigned char frame[64];
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *out;
	const struct bpf_insn *insn;
	size_t n;
	int err;

	libbpf_set_print(quiet);
	obj = bpf_object__open_file(path, &oo);
	err = (int)libbpf_get_error(obj);
	if (!err)
		err = bpf_object__load(obj);
	if (err) {
		printf("load: %d\n", err);
		return 1;
	}
	prog = bpf_object__next_program(obj, NULL);
	insn = bpf_program__insns(prog);
	n = bpf_program__insn_cnt(prog);
	core_print_insns(stdout, insn, n);
	{
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			printf("func_info %u line_info %u\n", info.nr_func_info, info.nr_line_info);
	}
	core_frame(frame);
	{
		LIBBPF_OPTS(bpf_test_run_opts, t, .data_in = frame, .data_size_in = sizeof(frame));

		err = bpf_prog_test_run_opts(bpf_program__fd(prog), &t);
		printf("retval %d %u\n", err, t.retval);
	}
	{
		struct bpf_map *m;

		bpf_object__for_each_map(m, obj) {
			struct bpf_map_info info;
			__u32 len = sizeof(info);

			memset(&info, 0, sizeof(info));
			if (!bpf_obj_get_info_by_fd(bpf_map__fd(m), &info, &len))
				printf("map %s flags 0x%x\n", info.name, info.map_flags);
		}
	}
	out = bpf_object__find_map_by_name(obj, "out");
	for (unsigned int k = 0; out && k < bpf_map__max_entries(out); k++) {
		unsigned long long v = 0;

		bpf_map_lookup_elem(bpf_map__fd(out), &k, &v);
		printf("out %u %llu\n", k, v);
	}
	bpf_object__close(obj);
	return 0;
}

/* --core-log OBJ: OBJ loaded by libbpf with a verifier log at level 1 ("load: ERR", then the
 * log as libbpf leaves it: a poisoned CO-RE instruction's refusal rewritten). */
static int core_log(const char *path)
{
	static char log[1 << 16];
	LIBBPF_OPTS(bpf_object_open_opts, oo, .kernel_log_buf = log, .kernel_log_size = sizeof(log),
		    .kernel_log_level = 1);
	struct bpf_object *obj;
	int err;

	libbpf_set_print(quiet);
	obj = bpf_object__open_file(path, &oo);
	err = (int)libbpf_get_error(obj);
	if (!err) {
		err = bpf_object__load(obj);
		bpf_object__close(obj);
	}
	printf("load: %d\n%s", err, log);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--load"))
		return load_each(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "--core-log"))
		return core_log(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--core"))
		return core_dump(argv[2], argc == 4 ? argv[3] : NULL, NULL);
	if (argc == 4 && !strcmp(argv[1], "--core-kconfig"))
		return core_dump(argv[2], NULL, argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: libbpf-user OBJDIR\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	low_level();
	portfilter(argv[1]);
	sockex1(argv[1]);
	globals(argv[1]);
	return failed;
}
