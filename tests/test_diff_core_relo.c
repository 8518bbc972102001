/* BPF_PROG_LOAD's CO-RE relocations (core_relos), against the kernel.  The program's BTF holds
 * local versions of kernel types (task_struct with its fields elsewhere, __sk_buff's protocol
 * as the first member, flavors, a type the kernel lacks, an enum with other values, iphdr's
 * bitfields); each case is a two- to four-instruction socket filter with one relocation (or a
 * malformed record), loaded on both sides with its log at level 1 and level 2, then run.
 * Verdict, errno, the whole level-1 log (the kernel's CO-RE lines included: candidates by
 * vmlinux id, specs, patches, poisoning), the level-2 log but for its candidate-cache lines
 * (the kernel's cache holds every loader's lookups since boot), and the returned value (the
 * relocated immediate, or skb->protocol read at a relocated offset) must be the kernel's.
 * Skipped where the kernel's bpf() is unavailable. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_blob.h"
#include "kbpf.h"
#include "test.h"
#include "verifier_harness.h"
#include "userbpf/insn.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define LOG_SIZE 65536

/* The local BTF's strings, at fixed offsets (S_*). */
#define STRS                                                                                     \
	"\0int\0unsigned int\0long long\0unsigned long long\0char\0task_struct\0pid\0tgid\0comm\0" \
	"flags\0task_struct___flav\0no_such_field\0userbpf_no_such_type\0x\0__sk_buff\0"           \
	"protocol\0__sk_buff___u64\0__sk_buff___s64\0bpf_map_type\0BPF_MAP_TYPE_HASH\0"           \
	"BPF_MAP_TYPE_NO_SUCH\0iphdr\0ihl\0version\0tos\0unsigned char\0prog\0"                    \
	"task_struct___wrong\0" "0\0" "0:0\0" "0:1\0" "0:2:3\0" "0:3\0" "1\0" "0:2\0" "x:1\0" "0:9\0" \
	"0:2:20\0" "-1\0" "0:0:0\0" "2:1\0" "0:2:-1\0" "0:4\0" "1:0\0" "0:1:0\0" "0::1\0" "0:\0"   \
	"task_t\0bpf_attr\0map_type\0prog_type\0mm_struct\0task_struct___mm\0mm\0bpf_prog\0len\0"     \
	"insnsi\0bpf_insn\0code\0iphdr___v2\0saddr\0daddr\0" "0:1:0:0\0" "0:1:5\0" "0:1:0:1\0"         \
	"0:0:1\0bpf_link_type\0BPF_LINK_TYPE_XDP\0"

enum {
	S_INT = 1, S_UINT = 5, S_LL = 18, S_ULL = 28, S_CHAR = 47, S_TASK = 52, S_PID = 64,
	S_TGID = 68, S_COMM = 73, S_FLAGS = 78, S_TASK_FLAV = 84, S_NO_FIELD = 103,
	S_NO_TYPE = 117, S_X = 138, S_SKB = 140, S_PROTO = 150, S_SKB_U64 = 159,
	S_SKB_S64 = 175, S_MAP_TYPE = 191, S_HASH = 204, S_NO_SUCH = 222, S_IPHDR = 243,
	S_IHL = 249, S_VERSION = 253, S_TOS = 261, S_UCHAR = 265, S_PROG = 279,
	S_TASK_WRONG = 284, A_0 = 304, A_00 = 306, A_01 = 310, A_023 = 314, A_03 = 320,
	A_1 = 324, A_02 = 326, A_BAD = 330, A_09 = 334, S_TASK_T = 387, S_ATTR = 394,
	S_MAP_TYPE_F = 403, S_PROG_TYPE = 412, S_MM_STRUCT = 422, S_TASK_MM = 432, S_MM = 449,
	S_BPF_PROG = 452, S_LEN = 461, S_INSNSI = 465, S_BPF_INSN = 472, S_CODE = 481,
	S_IPHDR2 = 486, S_SADDR = 497, S_DADDR = 503, A_0100 = 509, A_015 = 517, A_0101 = 523,
	A_001 = 531, S_LINK_TYPE = 537, S_LINK_XDP = 551,
};

/* Type ids. */
enum {
	T_INT_ = 1, T_UINT, T_LL, T_ULL, T_CHAR, T_COMM, T_TASK, T_TASK_FLAV, T_NO_TYPE, T_SKB,
	T_SKB_U64, T_SKB_S64, T_MAP_TYPE, T_IPHDR, T_UCHAR, T_PROTO_, T_FUNC_, T_TASK_WRONG,
	T_ANON, T_TASK_T, T_CONST_TASK, T_ATTR, T_MM_FWD, T_MM_PTR, T_TASK_MM, T_INSN, T_INSNS,
	T_BPF_PROG, T_MAP_TYPE64, T_ADDRS, T_ADDRU, T_IPHDR2, T_LAST = T_IPHDR2,
};

#define BF(bits, off) ((uint32_t)(bits) << 24 | (off)) /* a kflag struct's member offset */

static const uint32_t types_w[] = {
	T_INT(S_INT, 4, BTF_INT_SIGNED, 0, 32),
	T_INT(S_UINT, 4, 0, 0, 32),
	T_INT(S_LL, 8, BTF_INT_SIGNED, 0, 64),
	T_INT(S_ULL, 8, 0, 0, 64),
	T_INT(S_CHAR, 1, BTF_INT_SIGNED, 0, 8),
	T_ARRAY(T_CHAR, T_INT_, 16),
	/* task_struct: pid, tgid, comm[16], flags, packed at the front */
	T_STRUCT(S_TASK, 4, 28), T_MEMBER(S_PID, T_INT_, 0), T_MEMBER(S_TGID, T_INT_, 32),
	T_MEMBER(S_COMM, T_COMM, 64), T_MEMBER(S_FLAGS, T_UINT, 192),
	T_STRUCT(S_TASK_FLAV, 2, 8), T_MEMBER(S_PID, T_INT_, 0), T_MEMBER(S_NO_FIELD, T_INT_, 32),
	T_STRUCT(S_NO_TYPE, 1, 4), T_MEMBER(S_X, T_INT_, 0),
	T_STRUCT(S_SKB, 1, 4), T_MEMBER(S_PROTO, T_UINT, 0),
	T_STRUCT(S_SKB_U64, 1, 8), T_MEMBER(S_PROTO, T_ULL, 0),
	T_STRUCT(S_SKB_S64, 1, 8), T_MEMBER(S_PROTO, T_LL, 0),
	S_MAP_TYPE, INFO(BTF_KIND_ENUM, 0, 2), 4, S_HASH, 99, S_NO_SUCH, 7,
	S_IPHDR, INFO(BTF_KIND_STRUCT, 1, 3), 4, S_IHL, T_UCHAR, BF(4, 0), S_VERSION, T_UCHAR,
	BF(4, 4), S_TOS, T_UCHAR, BF(0, 8),
	T_INT(S_UCHAR, 1, 0, 0, 8),
	T_PROTO(T_INT_, 0),
	T_FUNC(S_PROG, T_PROTO_, BTF_FUNC_GLOBAL),
	T_STRUCT(S_TASK_WRONG, 1, 4), T_MEMBER(S_PID, T_NO_TYPE, 0),
	T_STRUCT(0, 1, 4), T_MEMBER(S_X, T_INT_, 0),
	/* a typedef and a const of task_struct; a union whose members the kernel's keeps in
	 * anonymous structs; a pointer to a declared struct; a flexible array of structs; an
	 * enum64 the kernel has as an enum (not bpf_map_type: the kernel's candidate cache,
	 * machine-wide, is keyed by name alone, so its answer for a name used with two kinds
	 * depends on which came first since boot); addresses inside an anonymous union */
	T_REF(BTF_KIND_TYPEDEF, S_TASK_T, T_TASK),
	T_REF(BTF_KIND_CONST, 0, T_TASK),
	S_ATTR, INFO(BTF_KIND_UNION, 0, 2), 4, T_MEMBER(S_MAP_TYPE_F, T_UINT, 0),
	T_MEMBER(S_PROG_TYPE, T_UINT, 0),
	S_MM_STRUCT, INFO(BTF_KIND_FWD, 0, 0), 0,
	T_PTR(T_MM_FWD),
	T_STRUCT(S_TASK_MM, 1, 8), T_MEMBER(S_MM, T_MM_PTR, 0),
	T_STRUCT(S_BPF_INSN, 1, 8), T_MEMBER(S_CODE, T_UCHAR, 0),
	T_ARRAY(T_INSN, T_INT_, 0),
	T_STRUCT(S_BPF_PROG, 2, 8), T_MEMBER(S_LEN, T_UINT, 0), T_MEMBER(S_INSNSI, T_INSNS, 64),
	S_LINK_TYPE, INFO(BTF_KIND_ENUM64, 0, 1), 8, S_LINK_XDP, 77, 0,
	T_STRUCT(0, 2, 8), T_MEMBER(S_SADDR, T_UINT, 0), T_MEMBER(S_DADDR, T_UINT, 32),
	0, INFO(BTF_KIND_UNION, 0, 1), 8, T_MEMBER(0, T_ADDRS, 0),
	T_STRUCT(S_IPHDR2, 2, 20), T_MEMBER(S_TOS, T_UCHAR, 8), T_MEMBER(0, T_ADDRU, 96),
};

enum form { ALU, LDX, LDX64, LD64, DEAD, JMP, ALUX, LDABS, NFORMS };

static const struct core_case {
	const char *what;
	enum form form;
	int32_t imm; /* what clang would have written: the local value (or off, for LDX) */
	struct bpf_core_relo relo;
	uint32_t rec_size; /* 0: sizeof(struct bpf_core_relo) */
	uint32_t tail;	   /* a word after the record (with rec_size 20) */
} cases[] = {
	{ "task_struct.tgid offset", ALU, 4, { 0, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "task_struct.flags offset", ALU, 24, { 0, T_TASK, A_03, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "task_struct.comm[3] offset", ALU, 11, { 0, T_TASK, A_023, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "task_struct.comm size", ALU, 16, { 0, T_TASK, A_02, BPF_CORE_FIELD_BYTE_SIZE } },
	{ "task_struct.pid exists", ALU, 1, { 0, T_TASK, A_00, BPF_CORE_FIELD_EXISTS } },
	{ "task_struct.pid signed", ALU, 1, { 0, T_TASK, A_00, BPF_CORE_FIELD_SIGNED } },
	{ "task_struct.flags signed", ALU, 0, { 0, T_TASK, A_03, BPF_CORE_FIELD_SIGNED } },
	{ "task_struct.pid lshift", ALU, 32, { 0, T_TASK, A_00, BPF_CORE_FIELD_LSHIFT_U64 } },
	{ "task_struct.pid rshift", ALU, 32, { 0, T_TASK, A_00, BPF_CORE_FIELD_RSHIFT_U64 } },
	{ "task_struct size", ALU, 28, { 0, T_TASK, A_0, BPF_CORE_TYPE_SIZE } },
	{ "task_struct exists", ALU, 1, { 0, T_TASK, A_0, BPF_CORE_TYPE_EXISTS } },
	{ "task_struct matches", ALU, 1, { 0, T_TASK, A_0, BPF_CORE_TYPE_MATCHES } },
	{ "task_struct target id", LD64, T_TASK, { 0, T_TASK, A_0, BPF_CORE_TYPE_ID_TARGET } },
	{ "task_struct local id", LD64, T_TASK, { 0, T_TASK, A_0, BPF_CORE_TYPE_ID_LOCAL } },
	{ "task_struct local id, ALU", ALU, 1234, { 0, T_TASK, A_0, BPF_CORE_TYPE_ID_LOCAL } },
	{ "flavor: pid offset", ALU, 0, { 0, T_TASK_FLAV, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "flavor: missing field exists", ALU, 1,
	  { 0, T_TASK_FLAV, A_01, BPF_CORE_FIELD_EXISTS } },
	{ "flavor: missing field offset", ALU, 4,
	  { 0, T_TASK_FLAV, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "flavor: missing field offset, dead", DEAD, 4,
	  { 16, T_TASK_FLAV, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "flavor: size", ALU, 8, { 0, T_TASK_FLAV, A_0, BPF_CORE_TYPE_SIZE } },
	{ "no such type: exists", ALU, 1, { 0, T_NO_TYPE, A_0, BPF_CORE_TYPE_EXISTS } },
	{ "no such type: size", ALU, 4, { 0, T_NO_TYPE, A_0, BPF_CORE_TYPE_SIZE } },
	{ "no such type: field exists", ALU, 1, { 0, T_NO_TYPE, A_00, BPF_CORE_FIELD_EXISTS } },
	{ "no such type: field offset", ALU, 0, { 0, T_NO_TYPE, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "no such type: target id", LD64, T_NO_TYPE,
	  { 0, T_NO_TYPE, A_0, BPF_CORE_TYPE_ID_TARGET } },
	{ "wrong field type", ALU, 0, { 0, T_TASK_WRONG, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "__sk_buff.protocol load", LDX, 0, { 0, T_SKB, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "__sk_buff.protocol as u64: load narrowed", LDX64, 0,
	  { 0, T_SKB_U64, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "__sk_buff.protocol as s64: load poisoned", LDX64, 0,
	  { 0, T_SKB_S64, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "__sk_buff.protocol load, wrong off", LDX, 8,
	  { 0, T_SKB, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "enum value", ALU, 99, { 0, T_MAP_TYPE, A_0, BPF_CORE_ENUMVAL_VALUE } },
	{ "enum value exists", ALU, 1, { 0, T_MAP_TYPE, A_0, BPF_CORE_ENUMVAL_EXISTS } },
	{ "missing enum value exists", ALU, 1, { 0, T_MAP_TYPE, A_1, BPF_CORE_ENUMVAL_EXISTS } },
	{ "missing enum value", ALU, 7, { 0, T_MAP_TYPE, A_1, BPF_CORE_ENUMVAL_VALUE } },
	{ "enum value, wrong imm", ALU, 98, { 0, T_MAP_TYPE, A_0, BPF_CORE_ENUMVAL_VALUE } },
	{ "iphdr.version offset", ALU, 0, { 0, T_IPHDR, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "iphdr.version size", ALU, 1, { 0, T_IPHDR, A_01, BPF_CORE_FIELD_BYTE_SIZE } },
	{ "iphdr.version lshift", ALU, 56, { 0, T_IPHDR, A_01, BPF_CORE_FIELD_LSHIFT_U64 } },
	{ "iphdr.version rshift", ALU, 60, { 0, T_IPHDR, A_01, BPF_CORE_FIELD_RSHIFT_U64 } },
	{ "iphdr.ihl signed", ALU, 0, { 0, T_IPHDR, A_00, BPF_CORE_FIELD_SIGNED } },
	{ "iphdr.tos offset", ALU, 1, { 0, T_IPHDR, A_02, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "iphdr matches", ALU, 1, { 0, T_IPHDR, A_0, BPF_CORE_TYPE_MATCHES } },
	{ "typedef: size", ALU, 28, { 0, T_TASK_T, A_0, BPF_CORE_TYPE_SIZE } },
	{ "typedef: field offset", ALU, 4, { 0, T_TASK_T, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "const: size", ALU, 28, { 0, T_CONST_TASK, A_0, BPF_CORE_TYPE_SIZE } },
	{ "union bpf_attr.prog_type offset", ALU, 0, { 0, T_ATTR, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "union bpf_attr.map_type exists", ALU, 1, { 0, T_ATTR, A_00, BPF_CORE_FIELD_EXISTS } },
	{ "pointer field: size", ALU, 8, { 0, T_TASK_MM, A_00, BPF_CORE_FIELD_BYTE_SIZE } },
	{ "pointer field: offset", ALU, 0, { 0, T_TASK_MM, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "pointer field: load", LDX64, 0, { 0, T_TASK_MM, A_00, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "flexible array element offset", ALU, 48, { 0, T_BPF_PROG, A_015, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "flexible array element size", ALU, 8, { 0, T_BPF_PROG, A_015, BPF_CORE_FIELD_BYTE_SIZE } },
	{ "enum64: value exists", ALU, 1, { 0, T_MAP_TYPE64, A_0, BPF_CORE_ENUMVAL_EXISTS } },
	{ "enum64: value", LD64, 77, { 0, T_MAP_TYPE64, A_0, BPF_CORE_ENUMVAL_VALUE } },
	{ "enum64: value, ALU", ALU, 77, { 0, T_MAP_TYPE64, A_0, BPF_CORE_ENUMVAL_VALUE } },
	{ "anonymous union member: saddr offset", ALU, 12,
	  { 0, T_IPHDR2, A_0100, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "anonymous union member: daddr offset", ALU, 16,
	  { 0, T_IPHDR2, A_0101, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "anonymous struct", ALU, 4, { 0, T_ANON, A_0, BPF_CORE_TYPE_SIZE } },
	{ "bad type id", ALU, 0, { 0, 999, A_0, BPF_CORE_TYPE_SIZE } },
	{ "bad access string", ALU, 0, { 0, T_TASK, A_BAD, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "member index out of range", ALU, 0, { 0, T_TASK, A_09, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "type relo, field access string", ALU, 28, { 0, T_TASK, A_01, BPF_CORE_TYPE_SIZE } },
	{ "unknown kind", ALU, 0, { 0, T_TASK, A_0, 13 } },
	{ "insn_off not a multiple of 8", ALU, 4, { 4, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "insn_off past the end", ALU, 4, { 64, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "relocating a jump", JMP, 0, { 8, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET } },
	{ "record size 12", ALU, 4, { 0, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET }, 12 },
	{ "record size 20, zero tail", ALU, 4, { 0, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET }, 20 },
	{ "record size 20, nonzero tail", ALU, 4,
	  { 0, T_TASK, A_01, BPF_CORE_FIELD_BYTE_OFFSET }, 20, 1 },
};

/* Drops the level-2 candidate-cache lines (the kernel's cache is the whole machine's). */
static void drop_cache_lines(char *log)
{
	static const char *const heads[] = { "vmlinux_cand_cache:", "module_cand_cache:" };

	for (size_t h = 0; h < N(heads); h++) {
		char *p;

		while ((p = strstr(log, heads[h])) != NULL) {
			char *end = strchr(p, '\n');
			char *rest = end ? end + 1 : p + strlen(p);

			memmove(p, rest, strlen(rest) + 1);
		}
	}
}

static int build_prog(enum form form, int32_t imm, struct bpf_insn *p)
{
	switch (form) {
	case ALU:
		p[0] = BPF_MOV64_IMM(BPF_REG_0, imm);
		p[1] = BPF_EXIT_INSN();
		return 2;
	case LDX:
		p[0] = BPF_LDX_MEM(BPF_W, BPF_REG_0, BPF_REG_1, (int16_t)imm);
		p[1] = BPF_EXIT_INSN();
		return 2;
	case LDX64:
		p[0] = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, (int16_t)imm);
		p[1] = BPF_EXIT_INSN();
		return 2;
	case LD64: {
		struct bpf_insn ld[2] = { BPF_LD_IMM64(BPF_REG_0, (uint32_t)imm) };

		p[0] = ld[0];
		p[1] = ld[1];
		p[2] = BPF_EXIT_INSN();
		return 3;
	}
	case DEAD:
		p[0] = BPF_MOV64_IMM(BPF_REG_0, 0);
		p[1] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 1);
		p[2] = BPF_MOV64_IMM(BPF_REG_0, imm);
		p[3] = BPF_EXIT_INSN();
		return 4;
	case JMP:
		p[0] = BPF_MOV64_IMM(BPF_REG_0, 0);
		p[1] = BPF_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 0);
		p[2] = BPF_EXIT_INSN();
		return 3;
	case ALUX:
		p[0] = BPF_MOV64_REG(BPF_REG_0, BPF_REG_10);
		p[1] = BPF_ALU64_REG(BPF_SUB, BPF_REG_0, BPF_REG_10);
		p[2] = BPF_EXIT_INSN();
		return 3;
	case LDABS:
		p[0] = BPF_MOV64_REG(BPF_REG_6, BPF_REG_1);
		p[1] = BPF_LD_ABS(BPF_B, imm);
		p[2] = BPF_EXIT_INSN();
		return 3;
	case NFORMS:
		break;
	}
	return 0;
}

/* Loads case c on side s with a log at level (fd or -1 and errno). */
static struct bpf_result load(int s, int btf, const struct core_case *c, bool with_func_info,
			      uint32_t level, char *log)
{
	struct bpf_func_info fi = { 0, T_FUNC_ };
	uint8_t rec[24];
	struct bpf_insn prog[4];
	uint32_t n = (uint32_t)build_prog(c->form, c->imm, prog);
	union bpf_attr a;

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &c->relo, sizeof(c->relo));
	memcpy(rec + sizeof(c->relo), &c->tail, sizeof(c->tail));
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = PTR_TO_U64(prog);
	a.insn_cnt = n;
	a.license = PTR_TO_U64("GPL");
	a.prog_btf_fd = (uint32_t)btf;
	if (with_func_info) {
		a.func_info = PTR_TO_U64(&fi);
		a.func_info_rec_size = sizeof(fi);
		a.func_info_cnt = 1;
	}
	a.core_relos = PTR_TO_U64(rec);
	a.core_relo_rec_size = c->rec_size ? c->rec_size : sizeof(c->relo);
	a.core_relo_cnt = 1;
	a.log_buf = PTR_TO_U64(log);
	a.log_size = LOG_SIZE;
	a.log_level = level;
	log[0] = 0;
	return side_call(s, BPF_PROG_LOAD, &a);
}

TEST(diff_core_relo)
{
	static char logs[2][NSIDES][LOG_SIZE];
	static const char strs[] = STRS;
	uint8_t pkt[64];
	int btf[NSIDES], accepted = 0, relocated = 0, poisoned = 0;

	SKIP_WITHOUT_KERNEL_BPF();
	/* the string offsets above are the table's */
	REQUIRE(!strcmp(strs + S_TASK, "task_struct") && !strcmp(strs + S_TASK_WRONG,
								  "task_struct___wrong"));
	REQUIRE(!strcmp(strs + A_09, "0:9") && !strcmp(strs + S_UCHAR, "unsigned char"));
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08; /* an IPv4 frame: skb->protocol 0x0008 */
	for (int s = 0; s < NSIDES; s++)
		btf[s] = side_btf_load(s, types_w, N(types_w), strs, sizeof(strs));
	REQUIRE(btf[K] >= 0 && btf[U] >= 0);

	for (size_t i = 0; i < N(cases); i++) {
		const struct core_case *c = &cases[i];
		struct bpf_result r[2][NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		char diff[512];

		for (int l = 0; l < 2; l++) {
			for (int s = 0; s < NSIDES; s++) {
				r[l][s] = load(s, btf[s], c, true, (uint32_t)l + 1, logs[l][s]);
				if (l == 1)
					drop_cache_lines(logs[l][s]);
				if (r[l][s].rc >= 0 && l == 1) {
					struct bpf_result t = side_test_run(s, r[l][s].rc, pkt,
									    sizeof(pkt), &ret[s]);

					CHECK_EQ(t.rc, 0);
				}
				if (r[l][s].rc >= 0)
					close(r[l][s].rc);
			}
			if (!AGREE(c->what, r[l]))
				continue;
			if (strcmp(logs[l][K], logs[l][U])) {
				vlog_first_diff(logs[l][K], logs[l][U], diff, sizeof(diff));
				test_fail(__FILE__, __LINE__, "%s, log level %d: %s", c->what, l + 1,
					  diff);
			}
		}
		if (r[1][K].rc < 0)
			continue;
		accepted++;
		if (ret[K] != ret[U])
			test_fail(__FILE__, __LINE__, "%s: the kernel's program returns %u, userbpf's %u",
				  c->what, ret[K], ret[U]);
		relocated += c->form == ALU && ret[K] != (uint32_t)c->imm;
		/* (a level-1 log keeps only a failed path: the CO-RE lines of a load that
		 * succeeds are in the level-2 one) */
		poisoned += strstr(logs[1][K], "w/ invalid insn") != NULL;
		if (getenv("TEST_VERBOSE"))
			printf("  %-45s -> %u\n", c->what, ret[K]);
	}
	/* without func_info or line_info the kernel never reads core_relos: the immediate stays */
	for (int s = 0; s < NSIDES; s++) {
		struct bpf_result r = load(s, btf[s], &cases[0], false, 1, logs[0][s]);
		uint32_t ret = 0;

		CHECK(r.rc >= 0);
		if (r.rc >= 0) {
			side_test_run(s, r.rc, pkt, sizeof(pkt), &ret);
			CHECK_EQ(ret, 4u);
			close(r.rc);
		}
	}
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
	if (getenv("TEST_VERBOSE"))
		printf("diff_core_relo: %zu cases, %d accepted, %d with a new immediate, %d with a "
		       "dead poisoned instruction\n", N(cases), accepted, relocated, poisoned);
	/* the cases must exercise what they claim: most load, many values change, and the dead
	 * poisoned instruction loads */
	CHECK(accepted >= 30);
	CHECK(relocated >= 10);
	CHECK(poisoned >= 1);
}

/* Random relocations against the same BTF: any kind (and one past the last), any type id (and
 * some past the last), access strings well-formed or not, in range or not, on each instruction
 * form, at the relocated instruction or elsewhere.  Verdict, errno, level-1 log and the value
 * returned must be the kernel's. */
TEST(diff_core_relo_random)
{
	static char logs[NSIDES][LOG_SIZE];
	static const char strs[] = STRS;
	uint32_t access[48], naccess = 0, seed = 20261206;
	uint8_t pkt[64];
	int btf[NSIDES], accepted = 0, rejected = 0, rounds = 400;

	/* CORE_ROUNDS and CORE_SEED: longer or other runs, to explore */
	if (getenv("CORE_ROUNDS"))
		rounds = atoi(getenv("CORE_ROUNDS"));
	if (getenv("CORE_SEED"))
		seed = (uint32_t)strtoul(getenv("CORE_SEED"), NULL, 0);

	SKIP_WITHOUT_KERNEL_BPF();
	/* the access strings: the table's entries that start with a digit, '-' or "x:" */
	for (uint32_t off = 1; off < sizeof(strs) - 1; off += (uint32_t)strlen(strs + off) + 1)
		if ((strs[off] >= '0' && strs[off] <= '9') || strs[off] == '-' || strs[off] == 'x')
			access[naccess++] = off;
	REQUIRE(naccess >= 19);
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08;
	for (int s = 0; s < NSIDES; s++)
		btf[s] = side_btf_load(s, types_w, N(types_w), strs, sizeof(strs));
	REQUIRE(btf[K] >= 0 && btf[U] >= 0);
	for (int i = 0; i < rounds; i++) {
		static const int32_t imms[] = { 0, 1, 1, 1, 4, 8, 16, 24, 28, 99, 7, 11, 60 };
		struct core_case c;
		struct bpf_result r[NSIDES];
		uint32_t ret[NSIDES] = { 0, 0 };
		char what[128], diff[512];

#define RND(n) ((seed = seed * 1103515245u + 12345u) >> 8) % (n)
		memset(&c, 0, sizeof(c));
		c.form = (enum form)RND(NFORMS);
		c.imm = imms[RND(N(imms))];
		c.relo.kind = RND(14);
		c.relo.insn_off = RND(6) ? (c.form == DEAD ? 16 : c.form >= JMP ? 8 : 0) : 8 * RND(4);
		if (RND(4)) { /* a coherent record: the kind's kind of type and access string */
			static const uint32_t structs[] = { T_TASK,	   T_TASK_FLAV, T_NO_TYPE,
							    T_SKB,	   T_SKB_U64,	T_IPHDR,
							    T_TASK_WRONG, T_TASK_T,	T_CONST_TASK,
							    T_ATTR,	   T_TASK_MM,	T_BPF_PROG,
							    T_IPHDR2 };
			static const uint32_t fields[] = { A_00, A_01,	 A_02,	A_03,  A_023,
							   A_09, A_0100, A_015, A_0101, A_001 };

			if (c.relo.kind <= BPF_CORE_FIELD_RSHIFT_U64) {
				c.relo.type_id = structs[RND(N(structs))];
				c.relo.access_str_off = RND(5) ? fields[RND(N(fields))]
							       : access[RND(naccess)];
			} else if (c.relo.kind == BPF_CORE_ENUMVAL_EXISTS ||
				   c.relo.kind == BPF_CORE_ENUMVAL_VALUE) {
				c.relo.type_id = RND(5) ? (RND(3) ? T_MAP_TYPE : T_MAP_TYPE64)
							: 1 + RND(T_LAST);
				c.relo.access_str_off = RND(2) ? A_0 : A_1;
			} else {
				c.relo.type_id = 1 + RND(T_LAST);
				c.relo.access_str_off = RND(5) ? A_0 : access[RND(naccess)];
			}
		} else {
			c.relo.type_id = RND(8) ? 1 + RND(T_LAST) : RND(40);
			c.relo.access_str_off = access[RND(naccess)];
		}
#undef RND
		snprintf(what, sizeof(what), "random #%d: form %d imm %d, type %u, \"%s\", kind %u, "
			 "insn_off %u", i, c.form, c.imm, c.relo.type_id,
			 strs + c.relo.access_str_off, c.relo.kind, c.relo.insn_off);
		c.what = what;
		for (int s = 0; s < NSIDES; s++) {
			r[s] = load(s, btf[s], &c, true, 1, logs[s]);
			if (r[s].rc >= 0) {
				side_test_run(s, r[s].rc, pkt, sizeof(pkt), &ret[s]);
				close(r[s].rc);
			}
		}
		if (!AGREE(what, r))
			continue;
		if (strcmp(logs[K], logs[U])) {
			vlog_first_diff(logs[K], logs[U], diff, sizeof(diff));
			test_fail(__FILE__, __LINE__, "%s: %s", what, diff);
		}
		if (r[K].rc >= 0 && ret[K] != ret[U])
			test_fail(__FILE__, __LINE__, "%s: the kernel's program returns %u, userbpf's %u",
				  what, ret[K], ret[U]);
		accepted += r[K].rc >= 0;
		rejected += r[K].rc < 0;
	}
	for (int s = 0; s < NSIDES; s++)
		close(btf[s]);
	if (getenv("TEST_VERBOSE"))
		printf("diff_core_relo_random: %d relocations, %d loads accepted, %d refused\n", rounds,
		       accepted, rejected);
	CHECK(accepted >= rounds / 25 && rejected >= rounds / 10);
}
