/* Loader tests on well-formed objects: what open finds in each example (programs, sections,
 * types, maps), loading into the kernel, running the programs there with BPF_PROG_TEST_RUN on
 * hand-built packets (this pins what userbpf must reproduce once it loads programs), and map
 * creation and global-data initialisation compared on both backends.
 *
 * Objects come from $(BUILD)/examples and $(BUILD)/tests/fixtures (LOADER_OBJ_DIR).  Each run_*()
 * is one scenario, registered for both backends by BOTH_BACKENDS(): the kernel's results are the
 * reference the userbpf run must match.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <userbpf/loader.h>

#include "btf/vmlinux.h"
#include "kallsyms.h"
#include "kbpf.h"
#include "test.h"

#ifndef LOADER_OBJ_DIR
#define LOADER_OBJ_DIR "build"
#endif
#define EXAMPLE(n) LOADER_OBJ_DIR "/examples/" n ".bpf.o"
#define FIXTURE(n) LOADER_OBJ_DIR "/tests/fixtures/" n ".bpf.o"
#define CORPUS(n) LOADER_OBJ_DIR "/tests/corpus/" n ".bpf.o"

static char errbuf[512];
static char logbuf[65536];

static int open_obj(const char *path, const struct bpf_backend *be, struct userbpf_object **obj)
{
	struct userbpf_object_opts opts = {
	    .sz = sizeof(opts),
	    .bpf = be->bpf,
	    .errbuf = errbuf,
	    .errbuf_size = sizeof(errbuf),
	    .log_buf = logbuf,
	    .log_size = sizeof(logbuf),
	};

	return userbpf_object_open_file(path, &opts, obj);
}

/* Opens and loads path on be; on failure prints the loader's message as a test failure. */
static struct userbpf_object *load_obj(const char *path, const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	int err;

	err = open_obj(path, be, &obj);
	if (err) {
		test_fail(__FILE__, __LINE__, "open %s: %d: %s", path, err, errbuf);
		return NULL;
	}
	logbuf[0] = '\0';
	err = userbpf_object_load(obj);
	if (err) {
		size_t n = strlen(logbuf);

		/* The end of the verifier's log says why. */
		test_fail(__FILE__, __LINE__, "load %s on %s: %d: %s\n...%s", path, be->name, err,
			  errbuf, logbuf + (n > 1500 ? n - 1500 : 0));
		userbpf_object_close(obj);
		return NULL;
	}
	return obj;
}

static int map_fd(struct userbpf_object *obj, const char *name)
{
	struct userbpf_map *m = userbpf_object_find_map(obj, name);

	return m ? userbpf_map_fd(m) : -1;
}

static int lookup(const struct bpf_backend *be, int fd, const void *key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = PTR_TO_U64(key);
	attr.value = PTR_TO_U64(value);
	return be->bpf(BPF_MAP_LOOKUP_ELEM, &attr, sizeof(attr));
}

static int update(const struct bpf_backend *be, int fd, const void *key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = PTR_TO_U64(key);
	attr.value = PTR_TO_U64(value);
	return be->bpf(BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr));
}

/* Whether the backend implements BPF_MAP_FREEZE (userbpf does not yet: EOPNOTSUPP). */
static int has_freeze(const struct bpf_backend *be)
{
	union bpf_attr attr;
	int fd, ret;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = be->bpf(BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	ret = be->bpf(BPF_MAP_FREEZE, &attr, sizeof(attr));
	close(fd);
	return ret == 0;
}

/* Runs prog once on pkt; returns the program's return value, or -1 (test failure recorded). */
static long long test_run(const struct bpf_backend *be, struct userbpf_program *prog, const void *pkt,
			  size_t len)
{
	union bpf_attr attr;
	unsigned char out[256];

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = userbpf_program_fd(prog);
	attr.test.data_in = PTR_TO_U64(pkt);
	attr.test.data_size_in = len;
	attr.test.data_out = PTR_TO_U64(out);
	attr.test.data_size_out = sizeof(out);
	attr.test.repeat = 1;
	if (be->bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr))) {
		test_fail(__FILE__, __LINE__, "BPF_PROG_TEST_RUN of %s: %s",
			  userbpf_program_name(prog), strerror(errno));
		return -1;
	}
	return attr.test.retval;
}

/* A 64-byte Ethernet + IPv4 packet of the given protocol; l4 receives the L4 header's offset.
 * ihl is the IPv4 header length in 32-bit words (5: no options). */
static void build_ipv4(unsigned char pkt[64], unsigned char proto, unsigned int ihl, size_t *l4)
{
	memset(pkt, 0, 64);
	memset(pkt, 0xff, 6); /* destination MAC: broadcast */
	pkt[6] = 0x02;	      /* source MAC: locally administered */
	pkt[12] = 0x08;	      /* EtherType IPv4 */
	pkt[13] = 0x00;
	pkt[14] = 0x40 | ihl; /* version 4, ihl */
	pkt[16] = 0;	      /* total length: 50 */
	pkt[17] = 50;
	pkt[22] = 64; /* TTL */
	pkt[23] = proto;
	pkt[26] = 10, pkt[29] = 1; /* 10.0.0.1 -> 10.0.0.2 */
	pkt[30] = 10, pkt[33] = 2;
	*l4 = 14 + ihl * 4;
}

static void set_ports(unsigned char *l4, uint16_t sport, uint16_t dport)
{
	l4[0] = sport >> 8, l4[1] = sport & 0xff;
	l4[2] = dport >> 8, l4[3] = dport & 0xff;
}

TEST(loader_open_examples)
{
	struct userbpf_object *obj;
	struct userbpf_program *p;
	struct userbpf_map *m;

	REQUIRE_EQ(open_obj(EXAMPLE("sockex1"), &backend_userbpf, &obj), 0);
	CHECK_EQ(userbpf_object_program_count(obj), 1);
	p = userbpf_object_program(obj, 0);
	REQUIRE(p);
	CHECK(!strcmp(userbpf_program_name(p), "bpf_prog1"));
	CHECK(!strcmp(userbpf_program_section(p), "socket"));
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_SOCKET_FILTER);
	CHECK_EQ(userbpf_program_fd(p), -1);
	CHECK(!strcmp(userbpf_object_license(obj), "GPL"));
	CHECK(!strcmp(userbpf_object_name(obj), "sockex1.bpf.o"));
	CHECK_EQ(userbpf_object_map_count(obj), 1);
	m = userbpf_object_find_map(obj, "my_map");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_type(m), BPF_MAP_TYPE_ARRAY);
	CHECK_EQ(userbpf_map_key_size(m), 4);
	CHECK_EQ(userbpf_map_value_size(m), 8);
	CHECK_EQ(userbpf_map_max_entries(m), 256);
	CHECK_EQ(userbpf_map_fd(m), -1);
	userbpf_object_close(obj);

	REQUIRE_EQ(open_obj(EXAMPLE("xdp_portfilter"), &backend_userbpf, &obj), 0);
	CHECK_EQ(userbpf_object_program_count(obj), 1);
	p = userbpf_object_find_program(obj, "xdp_portfilter");
	REQUIRE(p);
	CHECK(!strcmp(userbpf_program_section(p), "xdp"));
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_XDP);
	CHECK_EQ(userbpf_program_expected_attach_type(p), BPF_XDP);
	CHECK_EQ(userbpf_object_map_count(obj), 2);
	m = userbpf_object_find_map(obj, "blocked_ports");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_type(m), BPF_MAP_TYPE_HASH);
	CHECK_EQ(userbpf_map_key_size(m), 2);
	CHECK_EQ(userbpf_map_value_size(m), 1);
	CHECK_EQ(userbpf_map_max_entries(m), 1024);
	m = userbpf_object_find_map(obj, "verdicts");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_type(m), BPF_MAP_TYPE_ARRAY);
	CHECK_EQ(userbpf_map_max_entries(m), XDP_REDIRECT + 1);
	userbpf_object_close(obj);

	REQUIRE_EQ(open_obj(EXAMPLE("globals"), &backend_userbpf, &obj), 0);
	CHECK_EQ(userbpf_object_program_count(obj), 1); /* scale() in .text is a subprogram */
	p = userbpf_object_find_program(obj, "globals_prog");
	REQUIRE(p);
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_SOCKET_FILTER);
	CHECK_EQ(userbpf_object_map_count(obj), 3);
	m = userbpf_object_find_map(obj, ".rodata");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_value_size(m), 8);
	CHECK_EQ(userbpf_map_flags(m), BPF_F_RDONLY_PROG | BPF_F_MMAPABLE); /* (libbpf's) */
	m = userbpf_object_find_map(obj, ".data");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_value_size(m), 4);
	CHECK_EQ(userbpf_map_flags(m), BPF_F_MMAPABLE);
	m = userbpf_object_find_map(obj, ".bss");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_value_size(m), 16);
	CHECK_EQ(userbpf_map_max_entries(m), 1);
	userbpf_object_close(obj);
}

/* The section-name table, through the loader's internal helper (the tests link the static
 * library): an object per name would be eleven fixtures testing one table. */
int ld_prog_type_of(const char *sec, enum bpf_prog_type *type, enum bpf_attach_type *attach,
		    uint32_t *flags);

TEST(loader_section_names)
{
	static const struct {
		const char *sec;
		int err;
		enum bpf_prog_type type;
		uint32_t flags;
	} cases[] = {
	    {"socket", 0, BPF_PROG_TYPE_SOCKET_FILTER, 0},
	    {"xdp", 0, BPF_PROG_TYPE_XDP, 0},
	    {"kprobe/do_sys_open", 0, BPF_PROG_TYPE_KPROBE, 0},
	    {"kretprobe/do_sys_open", 0, BPF_PROG_TYPE_KPROBE, 0},
	    {"tracepoint/syscalls/sys_enter_open", 0, BPF_PROG_TYPE_TRACEPOINT, 0},
	    {"tc", 0, BPF_PROG_TYPE_SCHED_CLS, 0},
	    {"classifier", 0, BPF_PROG_TYPE_SCHED_CLS, 0},
	    {"classifier/ingress", 0, BPF_PROG_TYPE_SCHED_CLS, 0},
	    {"xdp.frags", 0, BPF_PROG_TYPE_XDP, BPF_F_XDP_HAS_FRAGS},
	    {"?xdp", 0, BPF_PROG_TYPE_XDP, 0},
	    {"syscall", 0, BPF_PROG_TYPE_SYSCALL, BPF_F_SLEEPABLE},
	    {"fentry/bpf_fentry_test1", 0, BPF_PROG_TYPE_TRACING, 0},
	    {"?fentry/bpf_fentry_test1", 0, BPF_PROG_TYPE_TRACING, 0},
	    {"lsm.s/file_open", 0, BPF_PROG_TYPE_LSM, BPF_F_SLEEPABLE},
	    {"kprobe.multi/do_*", 0, BPF_PROG_TYPE_KPROBE, 0},
	    {"xdpfoo", -EOPNOTSUPP, 0, 0},
	    {"xdp.frag", -EOPNOTSUPP, 0, 0},
	    {"sock", -EOPNOTSUPP, 0, 0},
	    {"??xdp", -EOPNOTSUPP, 0, 0},
	    {"", -EOPNOTSUPP, 0, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum bpf_prog_type type = 0;
		enum bpf_attach_type attach;
		uint32_t flags = 0;
		int err = ld_prog_type_of(cases[i].sec, &type, &attach, &flags);

		if (err != cases[i].err || (!err && (type != cases[i].type ||
						     flags != cases[i].flags)))
			test_fail(__FILE__, __LINE__, "section '%s': err %d type %d flags %u",
				  cases[i].sec, err, type, flags);
	}
}

/* libbpf's forms with an attach type of their own (the specific before the plain). */
TEST(loader_section_attach_types)
{
	static const struct {
		const char *sec;
		enum bpf_prog_type type;
		uint32_t flags, attach;
	} cases[] = {
	    {"xdp/devmap", BPF_PROG_TYPE_XDP, 0, BPF_XDP_DEVMAP},
	    {"xdp/cpumap", BPF_PROG_TYPE_XDP, 0, BPF_XDP_CPUMAP},
	    {"xdp.frags/devmap", BPF_PROG_TYPE_XDP, BPF_F_XDP_HAS_FRAGS, BPF_XDP_DEVMAP},
	    {"xdp/eth0", BPF_PROG_TYPE_XDP, 0, BPF_XDP},
	    {"tc/ingress", BPF_PROG_TYPE_SCHED_CLS, 0, 46 /* BPF_TCX_INGRESS */},
	    {"tcx/egress", BPF_PROG_TYPE_SCHED_CLS, 0, 47 /* BPF_TCX_EGRESS */},
	    {"netkit/peer", BPF_PROG_TYPE_SCHED_CLS, 0, 55 /* BPF_NETKIT_PEER */},
	    {"uprobe.multi/libc.so.6:malloc", BPF_PROG_TYPE_KPROBE, 0,
	     48 /* BPF_TRACE_UPROBE_MULTI */},
	    {"uprobe.multi.s/x:y", BPF_PROG_TYPE_KPROBE, BPF_F_SLEEPABLE, 48},
	    {"kprobe.session/do_*", BPF_PROG_TYPE_KPROBE, 0, 56 /* BPF_TRACE_KPROBE_SESSION */},
	    {"fmod_ret.s/bpf_fentry_test1", BPF_PROG_TYPE_TRACING, BPF_F_SLEEPABLE,
	     BPF_MODIFY_RETURN},
	    {"netfilter", 32 /* BPF_PROG_TYPE_NETFILTER */, 0, 45 /* BPF_NETFILTER */},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum bpf_prog_type type = 0;
		enum bpf_attach_type attach = 0;
		uint32_t flags = 0;
		int err = ld_prog_type_of(cases[i].sec, &type, &attach, &flags);

		if (err || type != cases[i].type || flags != cases[i].flags ||
		    attach != cases[i].attach)
			test_fail(__FILE__, __LINE__,
				  "section '%s': err %d type %d flags %u attach %u", cases[i].sec,
				  err, type, flags, attach);
	}
}

static void run_sockex1(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	unsigned char pkt[64];
	struct userbpf_program *p;
	uint32_t key;
	int64_t value;
	size_t l4;
	int fd;

	obj = load_obj(EXAMPLE("sockex1"), be);
	REQUIRE(obj);
	p = userbpf_object_program(obj, 0);
	CHECK(userbpf_program_fd(p) >= 0);
	fd = map_fd(obj, "my_map");
	CHECK(fd >= 0);
	/* The relocated ld_imm64 carries the map fd. */
	CHECK_EQ(userbpf_program_insns(p)[5].src_reg, BPF_PSEUDO_MAP_FD);
	CHECK_EQ(userbpf_program_insns(p)[5].imm, fd);

	/* Under BPF_PROG_TEST_RUN a socket filter sees the packet from the network header:
	 * skb->len is 64 - 14 and load_byte(ETH_HLEN + 9) reads packet byte 14 + 23 = 37, here
	 * the low byte of the UDP destination port. */
	build_ipv4(pkt, 17, 5, &l4);
	set_ports(pkt + l4, 1234, 0x0142);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 0);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 0);
	build_ipv4(pkt, 6, 5, &l4);
	set_ports(pkt + l4, 1234, 0x0107);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 0);
	key = 0x42;
	CHECK_EQ(lookup(be, fd, &key, &value), 0);
	CHECK_EQ(value, 2 * 50);
	key = 0x07;
	CHECK_EQ(lookup(be, fd, &key, &value), 0);
	CHECK_EQ(value, 50);
	key = 17; /* the protocol byte at Ethernet offset 23 is not what LD_ABS read here */
	CHECK_EQ(lookup(be, fd, &key, &value), 0);
	CHECK_EQ(value, 0);
	userbpf_object_close(obj);
}

static void run_xdp_portfilter(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	unsigned char pkt[64];
	struct userbpf_program *p;
	uint16_t port;
	uint8_t one = 1;
	uint32_t key;
	uint64_t n;
	size_t l4;
	int ports, verdicts;

	obj = load_obj(EXAMPLE("xdp_portfilter"), be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "xdp_portfilter");
	REQUIRE(p);
	CHECK(userbpf_program_fd(p) >= 0);
	ports = map_fd(obj, "blocked_ports");
	verdicts = map_fd(obj, "verdicts");
	port = htons(80);
	CHECK_EQ(update(be, ports, &port, &one), 0);
	port = htons(53);
	CHECK_EQ(update(be, ports, &port, &one), 0);

	build_ipv4(pkt, 6, 5, &l4); /* TCP to 80: dropped */
	set_ports(pkt + l4, 40000, 80);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_DROP);
	build_ipv4(pkt, 17, 5, &l4); /* UDP to 53: dropped */
	set_ports(pkt + l4, 40000, 53);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_DROP);
	build_ipv4(pkt, 17, 5, &l4); /* UDP to 80 */
	set_ports(pkt + l4, 53, 8080);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);
	build_ipv4(pkt, 6, 6, &l4); /* TCP to 80 behind 4 bytes of IP options: dropped */
	set_ports(pkt + l4, 40000, 80);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_DROP);
	build_ipv4(pkt, 1, 5, &l4); /* ICMP */
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);
	build_ipv4(pkt, 6, 5, &l4); /* TCP cut inside its header */
	set_ports(pkt + l4, 40000, 80);
	CHECK_EQ(test_run(be, p, pkt, l4 + 10), XDP_PASS);
	build_ipv4(pkt, 6, 5, &l4); /* ARP */
	pkt[12] = 0x08, pkt[13] = 0x06;
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);

	key = XDP_DROP;
	CHECK_EQ(lookup(be, verdicts, &key, &n), 0);
	CHECK_EQ(n, 3);
	key = XDP_PASS;
	CHECK_EQ(lookup(be, verdicts, &key, &n), 0);
	CHECK_EQ(n, 4);
	key = XDP_ABORTED;
	CHECK_EQ(lookup(be, verdicts, &key, &n), 0);
	CHECK_EQ(n, 0);
	userbpf_object_close(obj);
}

static void run_globals(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	const struct bpf_insn *insns;
	unsigned char pkt[64];
	struct userbpf_program *p;
	uint64_t bss[2];
	uint32_t key = 0, data, ro[2] = {0, 0};
	size_t l4;
	int fd;

	obj = load_obj(EXAMPLE("globals"), be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "globals_prog");
	REQUIRE(p);
	/* globals_prog (12 insns) then scale() (16) appended; the call at insn 6 reaches 12. */
	REQUIRE_EQ(userbpf_program_insn_cnt(p), 28);
	insns = userbpf_program_insns(p);
	CHECK_EQ(insns[6].code, BPF_JMP | BPF_CALL);
	CHECK_EQ(insns[6].src_reg, BPF_PSEUDO_CALL);
	CHECK_EQ(insns[6].imm, 12 - 7);
	/* .bss + 8 (last), and .rodata + 4 (step) in the subprogram. */
	CHECK_EQ(insns[7].src_reg, BPF_PSEUDO_MAP_VALUE);
	CHECK_EQ(insns[7].imm, map_fd(obj, ".bss"));
	CHECK_EQ(insns[8].imm, 8);
	CHECK_EQ(insns[15].src_reg, BPF_PSEUDO_MAP_VALUE);
	CHECK_EQ(insns[15].imm, map_fd(obj, ".rodata"));
	CHECK_EQ(insns[16].imm, 4);

	fd = map_fd(obj, ".rodata");
	CHECK_EQ(lookup(be, fd, &key, ro), 0);
	CHECK_EQ(ro[0], 3);
	CHECK_EQ(ro[1], 10);
	/* Frozen: user space can no longer write it (where the backend has BPF_MAP_FREEZE; the
	 * loader goes on without it, see load.c). */
	if (has_freeze(be))
		CHECK_ERRNO(update(be, fd, &key, ro), EPERM);

	build_ipv4(pkt, 17, 5, &l4);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), (50 * 3 + 100) & 0xff);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), (50 * 3 + 110) & 0xff);
	CHECK_EQ(lookup(be, map_fd(obj, ".bss"), &key, bss), 0);
	CHECK_EQ(bss[0], 2);
	CHECK_EQ(bss[1], 50 * 3 + 110);
	CHECK_EQ(lookup(be, map_fd(obj, ".data"), &key, &data), 0);
	CHECK_EQ(data, 120);
	userbpf_object_close(obj);
}

static void run_legacy_maps(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	struct userbpf_map *m;
	unsigned char pkt[64];
	uint32_t key = 1, v32;
	uint64_t v64;
	size_t l4;

	obj = load_obj(FIXTURE("legacy_maps"), be);
	REQUIRE(obj);
	CHECK_EQ(userbpf_object_kversion(obj), 0x060c00);
	m = userbpf_object_find_map(obj, "legacy_hash");
	REQUIRE(m);
	CHECK_EQ(userbpf_map_type(m), BPF_MAP_TYPE_HASH);
	CHECK_EQ(userbpf_map_flags(m), BPF_F_NO_PREALLOC);
	CHECK_EQ(userbpf_map_max_entries(m), 8);
	build_ipv4(pkt, 17, 5, &l4);
	CHECK_EQ(test_run(be, userbpf_object_program(obj, 0), pkt, sizeof(pkt)), 0);
	CHECK_EQ(lookup(be, userbpf_map_fd(m), &key, &v32), 0);
	CHECK_EQ(v32, 7);
	CHECK_EQ(lookup(be, map_fd(obj, "legacy_array"), &key, &v64), 0);
	CHECK_EQ(v64, 1);
	userbpf_object_close(obj);
}

/* Map creation and global-data contents, on both backends. */
TEST(loader_maps_both_backends)
{
	const struct bpf_backend *bes[] = {&backend_userbpf, &backend_kernel};

	for (size_t b = 0; b < 2; b++) {
		const struct bpf_backend *be = bes[b];
		struct userbpf_object *obj;
		uint32_t key = 0, rw[2], zero[5];
		uint64_t ro;

		if (be == &backend_kernel && !kernel_bpf_available())
			continue;
		obj = load_obj(FIXTURE("maps_only"), be);
		if (!obj)
			continue;
		CHECK_EQ(userbpf_object_map_count(obj), 5);
		for (size_t i = 0; i < userbpf_object_map_count(obj); i++)
			CHECK(userbpf_map_fd(userbpf_object_map(obj, i)) >= 0);
		CHECK_EQ(userbpf_map_key_size(userbpf_object_find_map(obj, "pairs")), 12);
		CHECK_EQ(userbpf_map_value_size(userbpf_object_find_map(obj, "pairs")), 32);
		CHECK_EQ(userbpf_map_value_size(userbpf_object_find_map(obj, "sized")), 12);
		CHECK_EQ(lookup(be, map_fd(obj, ".rodata"), &key, &ro), 0);
		CHECK_EQ(ro, 0x1122334455667788ULL);
		CHECK_EQ(lookup(be, map_fd(obj, ".data"), &key, rw), 0);
		CHECK_EQ(rw[0], 7);
		CHECK_EQ(rw[1], 9);
		memset(zero, 0xff, sizeof(zero));
		CHECK_EQ(lookup(be, map_fd(obj, ".bss"), &key, zero), 0);
		CHECK_EQ(zero[0] | zero[4], 0);
		userbpf_object_close(obj);
	}
}

/* userbpf has no BPF_PROG_LOAD yet: the loader reports the backend's error with the program. */
TEST(loader_userbpf_prog_load)
{
	struct userbpf_object *obj;
	int err;

	REQUIRE_EQ(open_obj(EXAMPLE("globals"), &backend_userbpf, &obj), 0);
	err = userbpf_object_load(obj);
	if (err == 0) {
		/* BPF_PROG_LOAD has landed: then the object must be fully loaded. */
		CHECK(userbpf_program_fd(userbpf_object_program(obj, 0)) >= 0);
	} else {
		CHECK_EQ(err, -EOPNOTSUPP);
		CHECK(!strcmp(errbuf, "globals.bpf.o: program 'globals_prog' (section 'socket'): "
				      "BPF_PROG_LOAD failed: Operation not supported"));
		/* Nothing stays open after a failed load. */
		for (size_t i = 0; i < userbpf_object_map_count(obj); i++)
			CHECK_EQ(userbpf_map_fd(userbpf_object_map(obj, i)), -1);
	}
	userbpf_object_close(obj);
}

/* Options: the size/last-field contract. */
TEST(loader_opts)
{
	struct {
		struct userbpf_object_opts o;
		unsigned char tail[8];
	} big;
	struct userbpf_object *obj = (void *)1;

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	CHECK_EQ(userbpf_object_open_file(EXAMPLE("sockex1"), &big.o, &obj), 0);
	userbpf_object_close(obj);
	big.tail[3] = 1;
	CHECK_EQ(userbpf_object_open_file(EXAMPLE("sockex1"), &big.o, &obj), -EINVAL);
	CHECK(obj == NULL);
	big.o.sz = 0;
	CHECK_EQ(userbpf_object_open_file(EXAMPLE("sockex1"), &big.o, &obj), -EINVAL);
	/* A short struct (only sz and bpf): the rest reads as zero. */
	memset(&big, 0, sizeof(big));
	big.o.sz = offsetof(struct userbpf_object_opts, name);
	CHECK_EQ(userbpf_object_open_file(EXAMPLE("sockex1"), &big.o, &obj), 0);
	userbpf_object_close(obj);
	CHECK_EQ(userbpf_object_open_file(EXAMPLE("sockex1"), NULL, &obj), 0);
	userbpf_object_close(obj);
	CHECK_EQ(userbpf_object_open_file(NULL, NULL, &obj), -EINVAL);
	CHECK_EQ(userbpf_object_open_mem(NULL, 1, NULL, &obj), -EINVAL);
	userbpf_object_close(NULL);
}

TEST(loader_open_file_errors)
{
	struct userbpf_object *obj;

	CHECK_EQ(open_obj(LOADER_OBJ_DIR "/no/such/file.o", &backend_userbpf, &obj), -ENOENT);
	CHECK(!strcmp(errbuf, "file.o: cannot open '" LOADER_OBJ_DIR
			      "/no/such/file.o': No such file or directory"));
	CHECK_EQ(open_obj(LOADER_OBJ_DIR, &backend_userbpf, &obj), -EINVAL);
	CHECK(!strcmp(errbuf, LOADER_OBJ_DIR ": '" LOADER_OBJ_DIR "' is not a regular file"));
}

/* Several programs in one object: each gets its own copy of the subprograms it reaches, including
 * a call between subprograms that the assembler resolved without a relocation. */
static void run_multi_prog(const struct bpf_backend *be)
{
	static const char *const names[] = {"first", "second", "third"};
	struct userbpf_object *obj;
	unsigned char pkt[64];
	size_t l4;
	int fd;

	obj = load_obj(FIXTURE("multi_prog"), be);
	REQUIRE(obj);
	REQUIRE_EQ(userbpf_object_program_count(obj), 3);
	fd = map_fd(obj, "hits");
	build_ipv4(pkt, 17, 5, &l4);
	for (uint32_t k = 0; k < 3; k++) {
		struct userbpf_program *p = userbpf_object_program(obj, k);
		const struct bpf_insn *insns = userbpf_program_insns(p);
		uint64_t v;

		CHECK(!strcmp(userbpf_program_name(p), names[k]));
		CHECK_EQ(userbpf_program_type(p),
			 k < 2 ? BPF_PROG_TYPE_SOCKET_FILTER : BPF_PROG_TYPE_XDP);
		/* The program (3), add() (16) at 3, twice() (3) at 19. */
		REQUIRE_EQ(userbpf_program_insn_cnt(p), 22);
		CHECK_EQ(insns[1].imm, 3 - 2);
		CHECK_EQ(insns[3 + 11].imm, 19 - (3 + 11 + 1));
		CHECK_EQ(insns[3 + 3].src_reg, BPF_PSEUDO_MAP_FD);
		CHECK_EQ(insns[3 + 3].imm, fd);
		CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 2 * (k + 1));
		CHECK_EQ(lookup(be, fd, &k, &v), 0);
		CHECK_EQ(v, 2 * (k + 1));
	}
	userbpf_object_close(obj);
}

/* Maps of maps: the array's initial inner maps come from the object; the hash's from user space. */
static void run_map_in_map(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	struct userbpf_program *p;
	unsigned char pkt[64];
	uint32_t key, id, dst = 0x0200000a; /* 10.0.0.2 as the packet holds it */
	uint64_t n;
	size_t l4;
	int by_proto, by_dst, tcp, udp, inner;
	union bpf_attr a;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/xdp_map_in_map.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "xdp_map_in_map");
	REQUIRE(p);
	by_proto = map_fd(obj, "by_proto");
	by_dst = map_fd(obj, "by_dst");
	tcp = map_fd(obj, "tcp_sizes");
	udp = map_fd(obj, "udp_sizes");
	REQUIRE(by_proto >= 0 && by_dst >= 0 && tcp >= 0 && udp >= 0);
	key = 0; /* slot 0 holds tcp_sizes (ids differ from tcp's fd: just present) */
	CHECK_EQ(lookup(be, by_proto, &key, &id), 0);
	key = 1;
	CHECK_EQ(lookup(be, by_proto, &key, &id), 0);

	build_ipv4(pkt, 6, 5, &l4); /* TCP, 50 bytes: size bucket 0; no hash for 10.0.0.2 yet */
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);
	pkt[16] = 0x04; /* UDP of 1074 bytes: bucket 2 */
	pkt[23] = 17;
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_PASS);
	key = 0;
	CHECK_EQ(lookup(be, tcp, &key, &n), 0);
	CHECK_EQ(n, 1);
	key = 2;
	CHECK_EQ(lookup(be, udp, &key, &n), 0);
	CHECK_EQ(n, 2);
	CHECK_EQ(lookup(be, tcp, &key, &n), 0);
	CHECK_EQ(n, 0);

	/* an inner hash for 10.0.0.2: the program counts sources in it, and drops */
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_HASH;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 16;
	inner = be->bpf(BPF_MAP_CREATE, &a, sizeof(a));
	REQUIRE(inner >= 0);
	id = (uint32_t)inner;
	CHECK_EQ(update(be, by_dst, &dst, &id), 0);
	close(inner); /* by_dst holds it */
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_DROP);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), XDP_DROP);
	CHECK_EQ(lookup(be, by_dst, &dst, &id), 0);
	memset(&a, 0, sizeof(a));
	a.map_id = id;
	inner = be->bpf(BPF_MAP_GET_FD_BY_ID, &a, sizeof(a)); /* (its fd was closed) */
	REQUIRE(inner >= 0);
	key = 0x0100000a; /* the source, 10.0.0.1: seen twice */
	CHECK_EQ(lookup(be, inner, &key, &n), 0);
	CHECK_EQ(n, 2);
	close(inner);
	key = 2;
	CHECK_EQ(lookup(be, udp, &key, &n), 0);
	CHECK_EQ(n, 4);
	userbpf_object_close(obj);
}

/* Maps are made with the object's BTF, as libbpf makes them: each map's BTF ids (key, value,
 * whether a BTF object is attached) are the same on both backends, and most maps have them. */
TEST(loader_map_btf_both_backends)
{
	static const char *const objs[] = {
		EXAMPLE("xdp_portfilter"), EXAMPLE("globals"), EXAMPLE("sockex1"),
		LOADER_OBJ_DIR "/tests/corpus/xdp_map_in_map.bpf.o",
		LOADER_OBJ_DIR "/tests/corpus/socket_rodata_cfg.bpf.o",
	};
	int with_btf = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		struct userbpf_object *o[NSIDES];

		for (int s = 0; s < NSIDES; s++)
			o[s] = load_obj(objs[i], diff_sides[s]);
		for (size_t m = 0; o[K] && o[U] && m < userbpf_object_map_count(o[K]); m++) {
			struct bpf_map_info info[NSIDES];

			for (int s = 0; s < NSIDES; s++) {
				uint32_t len = sizeof(info[s]);
				int fd = userbpf_map_fd(userbpf_object_map(o[s], m));

				memset(&info[s], 0, sizeof(info[s]));
				CHECK_EQ(side_obj_info(s, fd, &info[s], &len).rc, 0);
			}
			CHECK_EQ(!info[K].btf_id, !info[U].btf_id);
			CHECK_EQ(info[K].btf_key_type_id, info[U].btf_key_type_id);
			CHECK_EQ(info[K].btf_value_type_id, info[U].btf_value_type_id);
			with_btf += info[U].btf_value_type_id != 0;
		}
		for (int s = 0; s < NSIDES; s++)
			userbpf_object_close(o[s]);
	}
	CHECK(with_btf >= 6);
}

/* Callbacks (bpf_loop, bpf_for_each_map_elem), from clang: the program sums up to 32 packet words
 * through a bpf_loop() callback, counts the packet under the sum's low 4 bits, then finds the
 * first busiest counter with bpf_for_each_map_elem(); XDP_PASS when that is its own, and words
 * were summed.  The expected results are computed here. */
static void run_loop_callbacks(const struct bpf_backend *be)
{
	static const size_t lens[] = { 14, 15, 16, 63, 64, 65, 100, 256, 17, 40, 64, 200, 80, 30 };
	uint64_t counts[16] = { 0 }, n;
	unsigned char pkt[256];
	struct userbpf_object *obj;
	struct userbpf_program *p;
	int fd;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/xdp_loop_callbacks.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "xdp_loop_callbacks");
	fd = map_fd(obj, "counts");
	REQUIRE(p && fd >= 0);
	for (size_t t = 0; t < sizeof(lens) / sizeof(lens[0]); t++) {
		uint64_t sum = 0, max = 0;
		uint32_t words = 0, key, best = 0;

		for (size_t i = 0; i < sizeof(pkt); i++)
			pkt[i] = (unsigned char)(i * 13 + t * 7 + 1);
		for (size_t i = 0; i < 32 && 2 * i + 2 <= lens[t]; i++, words++)
			sum += (uint64_t)pkt[2 * i] | (uint64_t)pkt[2 * i + 1] << 8;
		key = (uint32_t)sum & 15;
		counts[key]++;
		for (uint32_t k = 0; k < 16; k++)
			if (counts[k] > max) {
				max = counts[k];
				best = k;
			}
		CHECK_EQ(test_run(be, p, pkt, lens[t]), best == key && words ? XDP_PASS : XDP_DROP);
	}
	for (uint32_t k = 0; k < 16; k++) {
		CHECK_EQ(lookup(be, fd, &k, &n), 0);
		CHECK_EQ(n, counts[k]);
	}
	userbpf_object_close(obj);
}

/* bpf_strncmp() with .rodata constants: the program keeps a request line that starts with
 * "GET ", "POST " or "HEAD " whole (its length), else 8 when the packet sorts before "GET ",
 * 16 after.  The expectations come from C's strncmp(). */
static void run_strncmp_http(const struct bpf_backend *be)
{
	static const char *const pkts[] = { "GET /index.html", "POST /form HTTP", "HEAD / HTTP/1.1",
					    "GETX something!", "GE", "AAAA this is it",
					    "ZZZZ this is it", "get lowercase!!", "PUT /x HTTP/1.1" };
	struct userbpf_object *obj;
	struct userbpf_program *p;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/socket_strncmp_http.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "socket_strncmp_http");
	REQUIRE(p);
	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++) {
		/* a socket filter's data starts after the 14-byte MAC header; 5 bytes are read */
		char pkt[64] = { 0 }, *l4 = pkt + 14;
		size_t n = strlen(pkts[i]) < 5 ? 5 : strlen(pkts[i]);
		long long want;

		memcpy(l4, pkts[i], strlen(pkts[i]));
		if (!strncmp(l4, "GET ", 4) || !strncmp(l4, "POST ", 5) || !strncmp(l4, "HEAD ", 5))
			want = (long long)n;
		else
			want = strncmp(l4, "GET ", 4) < 0 ? 8 : 16;
		CHECK_EQ(test_run(be, p, pkt, 14 + n), want);
	}
	userbpf_object_close(obj);
}

/* bpf_strtol(), base 0, and bpf_strtoul(), base 10, on 24 zero-padded bytes: what each consumed
 * (or the error) and its result. */
static void run_strtol_parse(const struct bpf_backend *be)
{
	static const struct {
		const char *in;
		long long n, v, m;
		unsigned long long u;
	} t[] = {
		{ "12345", 5, 12345, 5, 12345 },
		{ "  -42xyz", 5, -42, -EINVAL, 0 },
		{ "\t\n 7", 4, 7, 4, 7 },
		{ "0x1fZ", 4, 31, 1, 0 },
		{ "0X", 1, 0, 1, 0 },
		{ "0777", 4, 511, 4, 777 },
		{ "089", 1, 0, 3, 89 },
		{ "abc", -EINVAL, 0, -EINVAL, 0 },
		{ "", -EINVAL, 0, -EINVAL, 0 },
		{ "-", -EINVAL, 0, -EINVAL, 0 },
		{ "+5", -EINVAL, 0, -EINVAL, 0 },
		{ "99999999999999999999", -ERANGE, 0, -ERANGE, 0 },
		{ "9223372036854775807", 19, INT64_MAX, 19, INT64_MAX },
		{ "9223372036854775808", -ERANGE, 0, 19, 9223372036854775808ull },
		{ "-9223372036854775808", 20, INT64_MIN, -EINVAL, 0 },
		{ "-9223372036854775809", -ERANGE, 0, -EINVAL, 0 },
		{ "18446744073709551615", -ERANGE, 0, 20, UINT64_MAX },
		{ "000000000000000000000042", 24, 34, 24, 42 },
	};
	struct userbpf_object *obj;
	struct userbpf_program *p;
	int fd;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/socket_strtol_parse.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "socket_strtol_parse");
	REQUIRE(p);
	fd = map_fd(obj, "parsed");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		/* a socket filter's data starts after the 14-byte MAC header */
		char pkt[14 + 24] = { 0 };
		long long got[4] = { 0 };
		__u32 k = 0;

		memcpy(pkt + 14, t[i].in, strlen(t[i].in));
		CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 1);
		CHECK_EQ(lookup(be, fd, &k, got), 0);
		if (got[0] != t[i].n || got[1] != t[i].v || got[2] != t[i].m ||
		    (unsigned long long)got[3] != t[i].u)
			test_fail(__FILE__, __LINE__, "%s: \"%s\": %lld %lld %lld %llu, not %lld %lld "
				  "%lld %llu", be->name, t[i].in, got[0], got[1], got[2],
				  (unsigned long long)got[3], t[i].n, t[i].v, t[i].m, t[i].u);
	}
	userbpf_object_close(obj);
}

/* A raw tracepoint (raw_tp/sys_enter) run through BPF_PROG_TEST_RUN with its arguments, after
 * .rodata's `const volatile` target_tgid was set before load (userbpf_map_set_initial_value()):
 * syscalls counted by number, and this process's calls counted apart. */
static void run_raw_tp_syscall_hist(const struct bpf_backend *be)
{
	static const __u64 nrs[] = { 1, 2, 1, 1, 60, 2, 1 };
	static const struct {
		__u64 nr, count;
	} want[] = { { 1, 4 }, { 2, 2 }, { 60, 1 } };
	struct userbpf_object *obj;
	struct userbpf_program *p;
	struct userbpf_map *ro, *hist;
	__u32 tgid = (__u32)getpid(), zero = 0;
	__u64 v = 0, nr = 3;
	size_t size = 0;
	const __u32 *init;

	REQUIRE(open_obj(LOADER_OBJ_DIR "/tests/corpus/raw_tp_syscall_hist.bpf.o", be, &obj) == 0);
	ro = userbpf_object_find_map(obj, ".rodata");
	hist = userbpf_object_find_map(obj, "by_nr");
	REQUIRE(ro && hist);
	init = userbpf_map_initial_value(ro, &size);
	CHECK_EQ(size, sizeof(__u32));
	CHECK(init && *init == 0);
	CHECK(userbpf_map_initial_value(hist, NULL) == NULL);
	CHECK_ERRNO(userbpf_map_set_initial_value(ro, &v, sizeof(v)), EINVAL);
	CHECK_ERRNO(userbpf_map_set_initial_value(hist, &tgid, sizeof(tgid)), EINVAL);
	CHECK_EQ(userbpf_map_set_initial_value(ro, &tgid, sizeof(tgid)), 0);
	init = userbpf_map_initial_value(ro, NULL);
	CHECK(init && *init == tgid);
	if (userbpf_object_load(obj)) {
		test_fail(__FILE__, __LINE__, "load on %s: %s\n%s", be->name, errbuf, logbuf);
		userbpf_object_close(obj);
		return;
	}
	CHECK_ERRNO(userbpf_map_set_initial_value(ro, &tgid, sizeof(tgid)), EBUSY);
	p = userbpf_object_find_program(obj, "raw_tp_syscall_hist");
	REQUIRE(p);
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_RAW_TRACEPOINT);
	for (size_t i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++) {
		__u64 args[2] = { 0, nrs[i] };
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = userbpf_program_fd(p);
		attr.test.ctx_in = PTR_TO_U64(args);
		attr.test.ctx_size_in = sizeof(args);
		CHECK_EQ(be->bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr)), 0);
		CHECK_EQ(attr.test.retval, nrs[i]);
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK_EQ(lookup(be, userbpf_map_fd(hist), &want[i].nr, &v), 0);
		CHECK_EQ(v, want[i].count);
	}
	CHECK_ERRNO(lookup(be, userbpf_map_fd(hist), &nr, &v), ENOENT);
	CHECK_EQ(lookup(be, map_fd(obj, "mine"), &zero, &v), 0);
	CHECK_EQ(v, sizeof(nrs) / sizeof(nrs[0]));
	userbpf_object_close(obj);
}

/* A cgroup skb egress policy (cgroup_skb/egress) through BPF_PROG_TEST_RUN: its verdicts for
 * UDP to a blocked port (0), other UDP (1), TCP above the .rodata size limit set before load
 * (3: congestion notification) and below it (1), and the bytes it counted per protocol. */
static void run_cgroup_skb_policy(const struct bpf_backend *be)
{
	struct userbpf_object *obj;
	struct userbpf_program *p;
	struct userbpf_map *ro;
	unsigned char pkt[64];
	__u32 limit = 40, proto;
	__u16 port = 53;
	__u8 one = 1;
	__u64 bytes;
	size_t l4;

	REQUIRE(open_obj(LOADER_OBJ_DIR "/tests/corpus/cgroup_skb_egress_policy.bpf.o", be, &obj) ==
		0);
	ro = userbpf_object_find_map(obj, ".rodata");
	REQUIRE(ro);
	CHECK_EQ(userbpf_map_set_initial_value(ro, &limit, sizeof(limit)), 0);
	if (userbpf_object_load(obj)) {
		test_fail(__FILE__, __LINE__, "load on %s: %s\n%s", be->name, errbuf, logbuf);
		userbpf_object_close(obj);
		return;
	}
	p = userbpf_object_find_program(obj, "cgroup_skb_egress_policy");
	REQUIRE(p);
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_CGROUP_SKB);
	CHECK_EQ(userbpf_program_expected_attach_type(p), BPF_CGROUP_INET_EGRESS);
	CHECK_EQ(update(be, map_fd(obj, "blocked_udp_ports"), &port, &one), 0);

	build_ipv4(pkt, IPPROTO_UDP, 5, &l4);
	set_ports(pkt + l4, 4000, 53);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 0);
	set_ports(pkt + l4, 4000, 123);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 1);
	build_ipv4(pkt, IPPROTO_TCP, 5, &l4);
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 3); /* skb->len 50 > 40 */
	CHECK_EQ(test_run(be, p, pkt, 14 + 36), 1);
	pkt[12] = 0x86, pkt[13] = 0xdd; /* not IPv4: passes, uncounted */
	CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), 1);
	proto = IPPROTO_UDP;
	CHECK_EQ(lookup(be, map_fd(obj, "bytes_by_proto"), &proto, &bytes), 0);
	CHECK_EQ(bytes, 2 * 50);
	proto = IPPROTO_TCP;
	CHECK_EQ(lookup(be, map_fd(obj, "bytes_by_proto"), &proto, &bytes), 0);
	CHECK_EQ(bytes, 50 + 36);
	userbpf_object_close(obj);
}

/* A tc action (section "action"): its verdicts and the marks it sets, read back from ctx_out. */
static void run_tc_action_mark(const struct bpf_backend *be)
{
	static const struct {
		unsigned char proto;
		size_t len;
		__u32 mark, verdict;
	} t[] = {
		{ IPPROTO_TCP, 64, 6 | 443 << 8, 3 /* TC_ACT_PIPE */ },
		{ IPPROTO_UDP, 64, 17, 0 /* TC_ACT_OK */ },
		{ IPPROTO_TCP, 14 + 20 + 10, 6, 2 /* TC_ACT_SHOT: the TCP header is cut */ },
	};
	struct userbpf_object *obj;
	struct userbpf_program *p;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/tc_action_mark.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "tc_action_mark");
	REQUIRE(p);
	CHECK_EQ(userbpf_program_type(p), BPF_PROG_TYPE_SCHED_ACT);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct __sk_buff ctx = { 0 };
		unsigned char pkt[64], out[64];
		union bpf_attr attr;
		size_t l4;

		build_ipv4(pkt, t[i].proto, 5, &l4);
		set_ports(pkt + l4, 1234, 443);
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = userbpf_program_fd(p);
		attr.test.data_in = PTR_TO_U64(pkt);
		attr.test.data_size_in = (__u32)t[i].len;
		attr.test.data_out = PTR_TO_U64(out);
		attr.test.data_size_out = sizeof(out);
		attr.test.ctx_in = PTR_TO_U64(&ctx);
		attr.test.ctx_size_in = sizeof(ctx);
		attr.test.ctx_out = PTR_TO_U64(&ctx);
		attr.test.ctx_size_out = sizeof(ctx);
		CHECK_EQ(be->bpf(BPF_PROG_TEST_RUN, &attr, sizeof(attr)), 0);
		CHECK_EQ(attr.test.retval, t[i].verdict);
		CHECK_EQ(ctx.mark, t[i].mark);
	}
	userbpf_object_close(obj);
}

/* A program array's initial programs (`.values = { [1] = &drop_it, [3] = &tx_it }`), set by
 * the loader once the programs are loaded: the dispatcher reaches them by tail call. */
static void run_prog_array_values(const struct bpf_backend *be)
{
	static const struct {
		unsigned char slot;
		long long verdict;
	} t[] = { { 1, XDP_DROP }, { 3, XDP_TX }, { 0, XDP_PASS }, { 2, XDP_PASS }, { 9, XDP_PASS } };
	struct userbpf_object *obj;
	struct userbpf_program *p;
	unsigned char pkt[64] = { 0 };

	obj = load_obj(LOADER_OBJ_DIR "/tests/fixtures/prog_array_values.bpf.o", be);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "dispatch");
	REQUIRE(p);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pkt[0] = t[i].slot;
		CHECK_EQ(test_run(be, p, pkt, sizeof(pkt)), t[i].verdict);
	}
	userbpf_object_close(obj);
}

/* The same runs on both backends: the kernel pins the results userbpf must reproduce. */
#define BOTH_BACKENDS(name)                                                                        \
	TEST(loader_kernel_##name)                                                                 \
	{                                                                                          \
		SKIP_WITHOUT_KERNEL_BPF();                                                         \
		run_##name(&backend_kernel);                                                       \
	}                                                                                          \
	TEST(loader_userbpf_##name)                                                                \
	{                                                                                          \
		run_##name(&backend_userbpf);                                                      \
	}

BOTH_BACKENDS(sockex1)
BOTH_BACKENDS(xdp_portfilter)
BOTH_BACKENDS(globals)
BOTH_BACKENDS(legacy_maps)
BOTH_BACKENDS(multi_prog)
BOTH_BACKENDS(map_in_map)
BOTH_BACKENDS(loop_callbacks)
BOTH_BACKENDS(strncmp_http)
BOTH_BACKENDS(strtol_parse)
BOTH_BACKENDS(raw_tp_syscall_hist)
BOTH_BACKENDS(cgroup_skb_policy)
BOTH_BACKENDS(tc_action_mark)
BOTH_BACKENDS(prog_array_values)

/* Maps pinned by name (tests/fixtures/map_pinning): each load under the same pin root shares
 * the pinned map and has its own other map; the pinned one outlives the objects, with its
 * contents, until its file is removed; a map of another shape pinned there fails the load. */
static uint64_t pin_count(const struct bpf_backend *be, struct userbpf_object *obj,
			  const char *map)
{
	uint32_t k = 0;
	uint64_t v = ~0ull;

	CHECK_EQ(lookup(be, map_fd(obj, map), &k, &v), 0);
	return v;
}

static void pin_by_name_flow(const struct bpf_backend *be, const char *root)
{
	struct userbpf_object_opts opts = {
	    .sz = sizeof(opts), .bpf = be->bpf, .errbuf = errbuf, .errbuf_size = sizeof(errbuf),
	    .pin_root_path = root,
	};
	struct userbpf_object *obj[3] = { NULL, NULL, NULL };
	uint8_t pkt[64] = { 0 };
	char path[128];
	union bpf_attr a;
	int fd, runs[2] = { 3, 2 };

	snprintf(path, sizeof(path), "%s/pinned", root);
	for (int i = 0; i < 3; i++) {
		REQUIRE_EQ(userbpf_object_open_file(FIXTURE("map_pinning"), &opts, &obj[i]), 0);
		if (userbpf_object_load(obj[i])) {
			test_fail(__FILE__, __LINE__, "load %d on %s: %s", i, be->name, errbuf);
			goto out;
		}
		if (i == 2)
			break;
		for (int r = 0; r < runs[i]; r++)
			CHECK_EQ(test_run(be, userbpf_object_program(obj[i], 0), pkt, sizeof(pkt)),
				 XDP_PASS);
	}
	CHECK_EQ(side_map_id(be == &backend_kernel ? K : U, map_fd(obj[0], "pinned")),
		 side_map_id(be == &backend_kernel ? K : U, map_fd(obj[1], "pinned")));
	/* the API's view: the pinned map and its path; the other, unpinned, pinned by hand */
	{
		struct userbpf_map *pm = userbpf_object_find_map(obj[0], "pinned");
		struct userbpf_map *om = userbpf_object_find_map(obj[0], "own");
		char own_path[160], other[160];
		int s = be == &backend_kernel ? K : U;

		snprintf(own_path, sizeof(own_path), "%s/own0", root);
		snprintf(other, sizeof(other), "%s/elsewhere", root);
		REQUIRE(pm && om);
		CHECK(userbpf_map_is_pinned(pm) && !strcmp(userbpf_map_pin_path(pm), path));
		CHECK(!userbpf_map_is_pinned(om) && !userbpf_map_pin_path(om));
		CHECK_EQ(userbpf_map_pin(pm, NULL), 0);
		CHECK_EQ(userbpf_map_pin(pm, other), -EEXIST);
		CHECK_EQ(userbpf_map_set_pin_path(om, own_path), -EBUSY); /* loaded */
		CHECK_EQ(userbpf_map_pin(om, NULL), -EINVAL);
		CHECK_EQ(userbpf_map_pin(om, own_path), 0);
		CHECK(userbpf_map_is_pinned(om) && !strcmp(userbpf_map_pin_path(om), own_path));
		memset(&a, 0, sizeof(a));
		a.pathname = PTR_TO_U64(own_path);
		fd = be->bpf(BPF_OBJ_GET, &a, sizeof(a));
		CHECK(fd >= 0 && side_map_id(s, fd) == side_map_id(s, userbpf_map_fd(om)));
		if (fd >= 0)
			close(fd);
		CHECK_EQ(userbpf_map_unpin(om, other), -EINVAL);
		CHECK_EQ(userbpf_map_unpin(om, NULL), 0);
		CHECK(!userbpf_map_is_pinned(om));
		CHECK_EQ(access(own_path, F_OK), -1);
		CHECK_EQ(userbpf_map_unpin(om, NULL), -ENOENT);
	}
	CHECK_EQ(pin_count(be, obj[0], "pinned"), 5);
	CHECK_EQ(pin_count(be, obj[0], "own"), 3);
	CHECK_EQ(pin_count(be, obj[1], "own"), 2);
	/* the third load reused the map as it was */
	CHECK_EQ(pin_count(be, obj[2], "pinned"), 5);
	CHECK_EQ(pin_count(be, obj[2], "own"), 0);
	for (int i = 0; i < 3; i++) {
		userbpf_object_close(obj[i]);
		obj[i] = NULL;
	}
	/* every object closed, the pin holds the map */
	memset(&a, 0, sizeof(a));
	a.pathname = PTR_TO_U64(path);
	fd = be->bpf(BPF_OBJ_GET, &a, sizeof(a));
	CHECK(fd >= 0);
	if (fd >= 0) {
		uint32_t k = 0;
		uint64_t v = 0;

		CHECK_EQ(lookup(be, fd, &k, &v), 0);
		CHECK_EQ(v, 5);
		close(fd);
	}
	CHECK_EQ(unlink(path), 0);
	/* a map of another shape at the path: the load fails, naming it */
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	fd = be->bpf(BPF_MAP_CREATE, &a, sizeof(a));
	REQUIRE(fd >= 0);
	memset(&a, 0, sizeof(a));
	a.pathname = PTR_TO_U64(path);
	a.bpf_fd = (uint32_t)fd;
	CHECK_EQ(be->bpf(BPF_OBJ_PIN, &a, sizeof(a)), 0);
	close(fd);
	REQUIRE_EQ(userbpf_object_open_file(FIXTURE("map_pinning"), &opts, &obj[0]), 0);
	CHECK_EQ(userbpf_object_load(obj[0]), -EINVAL);
	CHECK(strstr(errbuf, "map 'pinned': couldn't reuse the map pinned at '") &&
	      strstr(errbuf, "/pinned': parameter mismatch"));
	userbpf_object_close(obj[0]);
	obj[0] = NULL;
	/* pin paths set before load: "pinned" without one is made afresh (the mismatched map at
	 * its old path is not looked at); "own" with one is pinned there by the first load and
	 * reused by the second */
	{
		char own_path[160];

		snprintf(own_path, sizeof(own_path), "%s/shared_own", root);
		for (int i = 0; i < 2; i++) {
			struct userbpf_map *pm, *om;

			REQUIRE_EQ(userbpf_object_open_file(FIXTURE("map_pinning"), &opts, &obj[i]),
				   0);
			pm = userbpf_object_find_map(obj[i], "pinned");
			om = userbpf_object_find_map(obj[i], "own");
			REQUIRE(pm && om);
			CHECK_EQ(userbpf_map_set_pin_path(pm, NULL), 0);
			CHECK_EQ(userbpf_map_set_pin_path(om, own_path), 0);
			CHECK_EQ(userbpf_object_load(obj[i]), 0);
			CHECK(!userbpf_map_is_pinned(pm) && userbpf_map_is_pinned(om));
			CHECK_EQ(test_run(be, userbpf_object_program(obj[i], 0), pkt, sizeof(pkt)),
				 XDP_PASS);
		}
		CHECK_EQ(pin_count(be, obj[1], "own"), 2);
		CHECK_EQ(pin_count(be, obj[1], "pinned"), 1);
		CHECK_EQ(unlink(own_path), 0);
	}
	CHECK_EQ(unlink(path), 0);
out:
	for (int i = 0; i < 3; i++)
		userbpf_object_close(obj[i]);
}

TEST(loader_userbpf_pin_by_name)
{
	char root[] = "/tmp/userbpf-ldpin-XXXXXX";

	REQUIRE(mkdtemp(root));
	pin_by_name_flow(&backend_userbpf, root);
	CHECK_EQ(rmdir(root), 0);
}

/* The same on the kernel, pinning into a BPF filesystem mounted for the test. */
TEST(loader_kernel_pin_by_name)
{
	char root[] = "/tmp/userbpf-ldpin-k-XXXXXX";

	SKIP_WITHOUT_KERNEL_BPF();
	REQUIRE(mkdtemp(root));
	if (mount("bpf", root, "bpf", 0, "mode=0700")) {
		int e = errno;

		rmdir(root);
		SKIP("mount -t bpf: %s", strerror(e));
	}
	pin_by_name_flow(&backend_kernel, root);
	umount2(root, MNT_DETACH);
	CHECK_EQ(rmdir(root), 0);
}

/* userbpf_program_reload(): the program loaded again as the loader loaded it (its BTF func_info
 * too: a callback needs it), with a log of its own; refused for a program not loaded. */
TEST(loader_program_reload)
{
	static char log[1 << 21]; /* its level-2 log is about 900 KB */
	struct userbpf_object *obj;
	struct userbpf_program *p;
	int fd;

	obj = load_obj(LOADER_OBJ_DIR "/tests/corpus/xdp_loop_callbacks.bpf.o", &backend_userbpf);
	REQUIRE(obj);
	p = userbpf_object_find_program(obj, "xdp_loop_callbacks");
	REQUIRE(p);
	fd = userbpf_program_reload(obj, p, log, sizeof(log), 1);
	CHECK(fd >= 0);
	CHECK(strstr(log, "processed ") != NULL);
	CHECK(fd != userbpf_program_fd(p));
	if (fd >= 0)
		close(fd);
	fd = userbpf_program_reload(obj, p, log, sizeof(log), 2);
	CHECK(fd >= 0);
	CHECK(strstr(log, "call bpf_loop#181") != NULL);
	CHECK(strstr(log, "; bpf_loop(32, sum_word, &s, 0); @ xdp_loop_callbacks.bpf.c:") != NULL);
	if (fd >= 0)
		close(fd);
	errno = 0;
	CHECK_EQ(userbpf_program_reload(obj, p, NULL, 64, 1), -1);
	CHECK_EQ(errno, EINVAL);
	userbpf_object_close(obj);
}

/* CO-RE in the loader, on userbpf alone: an unguarded access to a field the kernel's BTF lacks
 * is poisoned, its load fails with EINVAL and the log names the relocation where the verifier
 * refused the instruction (as libbpf rewrites it); a target BTF that cannot be read fails the
 * load before any program, saying which file.  (test_preload.c compares these with libbpf.) */
TEST(loader_core_unresolved)
{
	static char log[1 << 16];
	char err[512];
	struct userbpf_object_opts o = { .sz = sizeof(o), .errbuf = err, .errbuf_size = sizeof(err),
					 .log_buf = log, .log_size = sizeof(log), .log_level = 1 };
	struct userbpf_object *obj;
	const char *p;

	if (access("/sys/kernel/btf/vmlinux", R_OK) && !getenv("USERBPF_VMLINUX_BTF"))
		SKIP("no kernel BTF to relocate against");
	REQUIRE(!userbpf_object_open_file(FIXTURE("core_unresolved"), &o, &obj));
	CHECK_EQ(userbpf_object_load(obj), -EINVAL);
	CHECK(strstr(err, "program 'core_unresolved' (section 'socket'): BPF_PROG_LOAD failed: "
			  "Invalid argument") != NULL);
	p = strstr(log, "0: <invalid CO-RE relocation>\nfailed to resolve CO-RE relocation "
			"<byte_off> [");
	CHECK(p != NULL);
	CHECK(p && strstr(p, "] struct task_struct.userbpf_no_such_field (0:1 @ offset 4)\n"));
	CHECK(strstr(log, "invalid func unknown#195896080") == NULL);
	userbpf_object_close(obj);

	o.btf_custom_path = "/nonexistent/userbpf.btf";
	REQUIRE(!userbpf_object_open_file(EXAMPLE("sockex1"), &o, &obj));
	CHECK_EQ(userbpf_object_load(obj), 0); /* no CO-RE relocations: the file is never read */
	userbpf_object_close(obj);
	REQUIRE(!userbpf_object_open_file(FIXTURE("core_unresolved"), &o, &obj));
	CHECK_EQ(userbpf_object_load(obj), -ENOENT);
	CHECK(strstr(err, "CO-RE relocations: target BTF '/nonexistent/userbpf.btf': No such file") !=
	      NULL);
	/* (a second try fails the same way: nothing half-made was kept) */
	CHECK_EQ(userbpf_object_load(obj), -ENOENT);
	userbpf_object_close(obj);
}

/* __kconfig externs on userbpf alone (test_preload.c compares every value with libbpf's):
 * LINUX_KERNEL_VERSION is uname's release, the .kconfig map is listed and read-only to the
 * program, and the externs libbpf refuses are refused with its errno and message. */
TEST(loader_kconfig)
{
	char err[512];
	struct userbpf_object_opts o = { .sz = sizeof(o), .errbuf = err, .errbuf_size = sizeof(err) };
	struct userbpf_object *obj;
	const struct userbpf_map *m;
	unsigned int major, minor, patch, key = 0;
	unsigned long long v = 0;
	struct utsname uts;
	union bpf_attr a;
	unsigned char pkt[64] = { [12] = 0x08 };

	if (access("/proc/config.gz", R_OK) && uname(&uts) == 0) {
		char path[300];

		snprintf(path, sizeof(path), "/boot/config-%s", uts.release);
		if (access(path, R_OK))
			SKIP("no kernel config to read (/boot/config-%s, /proc/config.gz)",
			     uts.release);
	}
	REQUIRE(!uname(&uts) && sscanf(uts.release, "%u.%u.%u", &major, &minor, &patch) == 3);
	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/socket_kconfig.bpf.o", &o,
					  &obj));
	/* the load fills .kconfig: no initial value of the caller's (libbpf refuses it too) */
	{
		struct userbpf_map *k = userbpf_object_find_map(obj, ".kconfig");
		unsigned char zeros[64] = { 0 };

		REQUIRE(k != NULL && userbpf_map_value_size(k) <= sizeof(zeros));
		CHECK_EQ(userbpf_map_set_initial_value(k, zeros, userbpf_map_value_size(k)), -1);
		CHECK_EQ(errno, EINVAL);
	}
	REQUIRE(!userbpf_object_load(obj));
	m = userbpf_object_find_map(obj, ".kconfig");
	REQUIRE(m != NULL);
	CHECK_EQ(userbpf_map_flags(m), BPF_F_RDONLY_PROG | BPF_F_MMAPABLE);

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (unsigned int)userbpf_program_fd(userbpf_object_program(obj, 0));
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	CHECK_EQ(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
	memset(&a, 0, sizeof(a));
	a.map_fd = (unsigned int)userbpf_map_fd(userbpf_object_find_map(obj, "out"));
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	CHECK_EQ(bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)), 0);
	if (access("/proc/version_signature", R_OK)) /* (Ubuntu's says another version) */
		CHECK_EQ(v, (major << 16) + (minor << 8) + (patch > 255 ? 255 : patch));
	userbpf_object_close(obj);

	/* the kconfig option comes first: a value of the caller's, an error of the caller's */
	o.kconfig = "CONFIG_NR_CPUS=5\nCONFIG_DEFAULT_HOSTNAME=\"0123456789abcdefghij\"\n";
	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/socket_kconfig.bpf.o", &o,
					  &obj));
	REQUIRE(!userbpf_object_load(obj));
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (unsigned int)userbpf_program_fd(userbpf_object_program(obj, 0));
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	CHECK_EQ(bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
	key = 5;
	memset(&a, 0, sizeof(a));
	a.map_fd = (unsigned int)userbpf_map_fd(userbpf_object_find_map(obj, "out"));
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	CHECK_EQ(bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)), 0);
	CHECK_EQ(v, 5);
	key = 8; /* the hostname's bytes 0, 1, 5, 6, cut to 15 characters and a NUL */
	CHECK_EQ(bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)), 0);
	CHECK_EQ(v, (unsigned long long)('0' | '1' << 8 | '5' << 16 | '6' << 24));
	userbpf_object_close(obj);
	o.kconfig = "CONFIG_BPF_SYSCALL=m\n";
	REQUIRE(!userbpf_object_open_file(LOADER_OBJ_DIR "/tests/corpus/socket_kconfig.bpf.o", &o,
					  &obj));
	CHECK_EQ(userbpf_object_load(obj), -EINVAL);
	CHECK(strstr(err, "'CONFIG_BPF_SYSCALL': value 'm' implies tristate or char type") != NULL);
	userbpf_object_close(obj);
	o.kconfig = NULL;

	REQUIRE(!userbpf_object_open_file(FIXTURE("kconfig_strong_missing"), &o, &obj));
	CHECK_EQ(userbpf_object_load(obj), -ESRCH);
	CHECK(strstr(err, "extern 'CONFIG_USERBPF_NO_SUCH_OPTION' (strong): not resolved") != NULL);
	userbpf_object_close(obj);
	CHECK_EQ(userbpf_object_open_file(FIXTURE("kconfig_bad_type"), &o, &obj), -EOPNOTSUPP);
	CHECK(strstr(err, "extern (kcfg) 'CONFIG_NR_CPUS': type is unsupported") != NULL);
	REQUIRE(!userbpf_object_open_file(FIXTURE("kconfig_bad_linux"), &o, &obj));
	CHECK_EQ(userbpf_object_load(obj), -EINVAL);
	CHECK(strstr(err, "'LINUX_USERBPF_NO_SUCH_THING': unrecognized virtual extern") != NULL);
	userbpf_object_close(obj);
}

/* Typeless kernel symbols (`extern const void sym __ksym`), as libbpf resolves them at load from
 * /proc/kallsyms: the address as a constant, on both sides (the kernel's and userbpf's runs
 * return its low half), a weak one missing as 0, a strong one missing refused with libbpf's
 * message. */
TEST(loader_typeless_ksym)
{
	const struct bpf_backend *bes[2] = { &backend_userbpf, &backend_kernel };
	int sides = kernel_bpf_available() ? 2 : 1;
	unsigned char pkt[64] = { [12] = 0x08 };
	struct userbpf_object *obj;
	u_int64_t addr;

	if (kallsyms_lookup("bpf_prog_put", &addr, NULL))
		SKIP("/proc/kallsyms shows no address of bpf_prog_put to this process");
	for (int s = 0; s < sides; s++) {
		union bpf_attr a;

		obj = load_obj(FIXTURE("ksym_typeless"), bes[s]);
		REQUIRE(obj != NULL);
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (u_int32_t)userbpf_program_fd(userbpf_object_program(obj, 0));
		a.test.data_in = (uintptr_t)pkt;
		a.test.data_size_in = sizeof(pkt);
		CHECK_EQ(bes[s]->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)), 0);
		CHECK_EQ(a.test.retval, (u_int32_t)addr);
		userbpf_object_close(obj);
	}
	REQUIRE(!open_obj(FIXTURE("ksym_strong_missing"), &backend_userbpf, &obj));
	CHECK_EQ(userbpf_object_load(obj), -ESRCH);
	CHECK(strstr(errbuf, "extern 'userbpf_no_such_symbol' (strong): not resolved") != NULL);
	userbpf_object_close(obj);
}

/* Programs left out of the load: a "?" section is not loaded unless asked for, and any program
 * can be left out before the load, so that an object with a program userbpf cannot load (here
 * an LSM one) still gives the others (libbpf's autoload). */
TEST(loader_autoload)
{
	char err[512];
	struct userbpf_object_opts o = { .sz = sizeof(o), .errbuf = err, .errbuf_size = sizeof(err) };
	struct userbpf_object *obj;
	struct userbpf_program *pass, *drop, *trace;

	REQUIRE(!userbpf_object_open_file(FIXTURE("mixed_autoload"), &o, &obj));
	pass = userbpf_object_find_program(obj, "pass_all");
	drop = userbpf_object_find_program(obj, "drop_all");
	trace = userbpf_object_find_program(obj, "on_file_open");
	REQUIRE(pass && drop && trace);
	CHECK(userbpf_program_autoload(pass) && !userbpf_program_autoload(drop) &&
	      !userbpf_program_autoload(trace));
	CHECK_EQ(userbpf_program_type(trace), BPF_PROG_TYPE_LSM);
	CHECK_EQ(userbpf_program_expected_attach_type(trace), BPF_LSM_MAC);
	REQUIRE(!userbpf_object_load(obj));
	CHECK(userbpf_program_fd(pass) >= 0);
	CHECK_EQ(userbpf_program_fd(drop), -1);
	CHECK_EQ(userbpf_program_fd(trace), -1);
	CHECK_EQ(userbpf_program_set_autoload(obj, drop, true), -1); /* loaded: too late */
	CHECK_EQ(errno, EBUSY);
	userbpf_object_close(obj);

	/* asked for: the "?xdp" one loads; the LSM one fails the load, naming it */
	REQUIRE(!userbpf_object_open_file(FIXTURE("mixed_autoload"), &o, &obj));
	drop = userbpf_object_find_program(obj, "drop_all");
	trace = userbpf_object_find_program(obj, "on_file_open");
	CHECK_EQ(userbpf_program_set_autoload(obj, drop, true), 0);
	CHECK_EQ(userbpf_program_set_autoload(obj, trace, true), 0);
	CHECK(userbpf_object_load(obj) < 0);
	CHECK(strstr(err, "program 'on_file_open'") != NULL);
	CHECK_EQ(userbpf_program_set_autoload(obj, trace, false), 0);
	CHECK_EQ(userbpf_object_load(obj), 0);
	CHECK(userbpf_program_fd(drop) >= 0);
	CHECK_EQ(userbpf_program_fd(trace), -1);
	CHECK_EQ(userbpf_program_set_autoload(NULL, drop, true), -1);
	userbpf_object_close(obj);
}

/* BPF_PROG_TEST_RUN of obj's first program, a syscall program, on ctx (size bytes, which come
 * back changed where the program wrote: a syscall program has no ctx_out); its return value,
 * or 9999 where the run fails. */
static uint32_t syscall_run(const struct bpf_backend *be, struct userbpf_object *obj, void *ctx,
			    uint32_t size)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)userbpf_program_fd(userbpf_object_program(obj, 0));
	a.test.ctx_in = (uintptr_t)ctx;
	a.test.ctx_size_in = size;
	return be->bpf(BPF_PROG_TEST_RUN, &a, sizeof(a)) ? 9999 : a.test.retval;
}

/* A syscall program reading its caller's memory: bpf_copy_from_user() of a struct and the
 * kfunc bpf_copy_from_user_str() of a path, from good addresses, NULL, a struct running into an
 * unreadable page, a path longer than the buffer.  The ctx it leaves and its return value are
 * the table's, and the kernel's where its bpf() is available. */
TEST(loader_syscall_copy_user)
{
	const struct bpf_backend *bes[2] = { &backend_userbpf, &backend_kernel };
	struct request { uint32_t op, flags; uint64_t cookie; };
	struct args {
		uint64_t req_ptr, path_ptr;
		struct request req;
		char path[24];
		int req_ret, path_ret;
		uint32_t checksum;
	};
	int sides = kernel_bpf_available() ? 2 : 1;
	uint8_t *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			      0);
	static const struct request good = { 3, 5, 1000 };
	static const char *const paths[] = { "/etc/hosts", "", "/a/path/longer/than/the/buffer" };
	static const struct {
		int req, path;		/* 0: good (paths[0]); 1: NULL; 2: runs into PROT_NONE; 3,4:
					 * paths[1], [2] */
		int req_ret, path_ret;
		uint32_t retval;
	} runs[] = {
		{ 0, 0, 0, 11, 0 },
		{ 1, 3, -EFAULT, 1, 1 },
		{ 2, 4, -EFAULT, 24, 1 },
		{ 0, 1, 0, -EFAULT, 1 },
		{ 0, 2, 0, 3, 0 },	/* "ab" right before the unreadable page, then a NUL */
	};

	REQUIRE(pages != MAP_FAILED);
	if (!btf_vmlinux() || !btf_find_func(btf_vmlinux(), "bpf_copy_from_user_str")) {
		munmap(pages, 8192);
		SKIP("no kernel BTF with bpf_copy_from_user_str() (6.12): its extern cannot be "
		     "resolved");
	}
	if (!self_reads_work()) {
		munmap(pages, 8192);
		SKIP("process_vm_readv() cannot read this process (qemu-user?): user copies read "
		     "through it");
	}
	REQUIRE(!mprotect(pages + 4096, 4096, PROT_NONE));
	/* the last 8 bytes of the readable page: half a request (its cookie past the page), the
	 * last 3 also a path "ab" */
	memcpy(pages + 4096 - 8, &good, 8);
	memcpy(pages + 4096 - 3, "ab", 3);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct args ctx[2];
		uint32_t retval[2] = { 9, 9 };
		uint64_t ptr[3];

		for (int s = 0; s < sides; s++) {
			struct userbpf_object *obj = load_obj(CORPUS("syscall_copy_user"), bes[s]);

			REQUIRE(obj != NULL);
			memset(&ctx[s], 0xee, sizeof(ctx[s]));
			ptr[0] = (uintptr_t)&good;
			ptr[1] = 0;
			ptr[2] = (uintptr_t)(pages + 4096 - 8);
			ctx[s].req_ptr = ptr[runs[i].req];
			ctx[s].path_ptr = runs[i].path == 0   ? (uintptr_t)paths[0]
					  : runs[i].path == 1 ? 0
					  : runs[i].path == 2 ? (uintptr_t)(pages + 4096 - 3)
							      : (uintptr_t)paths[runs[i].path - 2];
			retval[s] = syscall_run(bes[s], obj, &ctx[s], sizeof(ctx[s]));
			userbpf_object_close(obj);
		}
		CHECK_EQ(retval[0], runs[i].retval);
		CHECK_EQ(ctx[0].req_ret, runs[i].req_ret);
		CHECK_EQ(ctx[0].path_ret, runs[i].path_ret);
		if (!runs[i].req_ret) {
			CHECK(!memcmp(&ctx[0].req, &good, sizeof(good)));
			CHECK_EQ(ctx[0].checksum, 3u * 31 + 5 * 7 + 1000);
		} else {
			static const struct request zero;

			CHECK(!memcmp(&ctx[0].req, &zero, sizeof(zero))); /* (zeroed on a fault) */
			CHECK_EQ(ctx[0].checksum, 0u);
		}
		if (runs[i].path_ret > 0)
			CHECK_EQ((int)strlen(ctx[0].path), runs[i].path_ret - 1);
		for (int b = runs[i].path_ret > 0 ? runs[i].path_ret - 1 : 0; b < 24; b++)
			CHECK_EQ(ctx[0].path[b], 0); /* (BPF_F_PAD_ZEROS) */
		if (sides == 2) {
			CHECK_EQ(retval[1], retval[0]);
			CHECK(!memcmp(&ctx[1], &ctx[0], sizeof(ctx[0])));
		}
	}
	munmap(pages, 8192);
}

/* SEC("syscall"): loaded sleepable, as the section says, and run through BPF_PROG_TEST_RUN on
 * its ctx: the program makes a map with bpf_sys_bpf(), fills it, closes it; the ctx it leaves
 * is the kernel's (but the fd number, which is each process's own). */
TEST(loader_syscall_section)
{
	const struct bpf_backend *bes[2] = { &backend_userbpf, &backend_kernel };
	struct {
		uint64_t value;
		int map_fd;
		int update_ret;
	} ctx[2];
	uint32_t retval[2] = { 9, 9 };
	int sides = kernel_bpf_available() ? 2 : 1;

	for (int s = 0; s < sides; s++) {
		struct userbpf_object *obj = load_obj(CORPUS("syscall_make_map"), bes[s]);

		REQUIRE(obj != NULL);
		memset(&ctx[s], 0, sizeof(ctx[s]));
		ctx[s].value = 42;
		ctx[s].map_fd = ctx[s].update_ret = -100;
		retval[s] = syscall_run(bes[s], obj, &ctx[s], sizeof(ctx[s]));
		userbpf_object_close(obj);
	}
	CHECK_EQ(retval[0], 0);
	CHECK(ctx[0].map_fd >= 0);
	CHECK_EQ(ctx[0].update_ret, 0);
	if (sides == 2) {
		CHECK_EQ(retval[1], retval[0]);
		CHECK(ctx[1].map_fd >= 0);
		CHECK_EQ(ctx[1].update_ret, ctx[0].update_ret);
	}
}
