/* embed_demo — userbpf as a safe extension VM inside an application: a request filter whose rule
 * is a BPF program.  Build and run: make embed-demo
 *
 * The application's own struct request is the program's context (R1; R2 = its size).  The
 * program may read it and write its `reason` field's bytes (ctx_writable), and call one helper
 * the application registers, is_admin(uid).  The verifier checks every access and call against
 * those declarations before the program ever runs; userbpf_prog_run() then costs a function call
 * and the interpreter, with no system call and no lock, from any thread.
 *
 * The rule, as the program below encodes it:
 *   port 22 and not is_admin(uid)          -> deny, reason 1
 *   method POST and body > 1 MiB           -> deny, reason 2
 *   otherwise                              -> allow
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <userbpf.h>
#include <userbpf/insn.h>

struct request {
	uint32_t uid;
	uint32_t body_len;
	uint16_t port;
	uint8_t method;		/* 0 GET, 1 POST */
	uint8_t pad;
	uint32_t reason;	/* written by the rule: why it denied */
};

enum { VERDICT_DENY = 0, VERDICT_ALLOW = 1 };
enum { HELPER_IS_ADMIN = 1 };

/* The registered helper: uid 0..9 are administrators. */
static uint64_t is_admin(uint64_t uid, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	return uid < 10;
}

static const struct userbpf_helper helpers[] = {
	{ .name = "is_admin", .id = HELPER_IS_ADMIN, .fn = is_admin,
	  .arg_types = { USERBPF_ARG_ANYTHING }, .ret_type = USERBPF_RET_INTEGER },
};

#define OFF(f) offsetof(struct request, f)

static const struct bpf_insn rule[] = {
	BPF_MOV64_REG(BPF_REG_6, BPF_REG_1),			/* r6 = req (kept across calls) */
	BPF_LDX_MEM(BPF_H, BPF_REG_2, BPF_REG_6, OFF(port)),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_2, 22, 6),			/* not ssh: next check */
	BPF_LDX_MEM(BPF_W, BPF_REG_1, BPF_REG_6, OFF(uid)),
	BPF_EMIT_CALL(HELPER_IS_ADMIN),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_0, 0, 3),			/* admin: next check */
	BPF_ST_MEM(BPF_W, BPF_REG_6, OFF(reason), 1),
	BPF_MOV64_IMM(BPF_REG_0, VERDICT_DENY),
	BPF_EXIT_INSN(),
	BPF_LDX_MEM(BPF_B, BPF_REG_2, BPF_REG_6, OFF(method)),	/* next check */
	BPF_JMP_IMM(BPF_JNE, BPF_REG_2, 1, 5),			/* not POST: allow */
	BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_6, OFF(body_len)),
	BPF_JMP_IMM(BPF_JLE, BPF_REG_3, 1 << 20, 3),		/* small body: allow */
	BPF_ST_MEM(BPF_W, BPF_REG_6, OFF(reason), 2),
	BPF_MOV64_IMM(BPF_REG_0, VERDICT_DENY),
	BPF_EXIT_INSN(),
	BPF_MOV64_IMM(BPF_REG_0, VERDICT_ALLOW),		/* allow */
	BPF_EXIT_INSN(),
};

static uint32_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

int main(void)
{
	static char log[64 * 1024];
	struct userbpf_prog_load_opts opts = {
		.sz = sizeof(opts),
		.ctx_size = sizeof(struct request),
		.ctx_writable = true,
		.helpers = helpers,
		.nr_helpers = sizeof(helpers) / sizeof(helpers[0]),
		.log_level = 1,
		.log_buf = log,
		.log_size = sizeof(log),
		.name = "request_rule",
	};
	enum { RUNS = 1000000 };
	uint64_t counts[2] = { 0 }, reasons[3] = { 0 }, seed = 42;
	struct userbpf_prog *prog;
	struct timespec t0, t1;
	double ns;
	int err;

	err = userbpf_prog_load_ext(rule, sizeof(rule) / sizeof(rule[0]), &opts, &prog);
	if (err) {
		fprintf(stderr, "the rule was refused: %s\n%s", strerror(-err), log);
		return 1;
	}
	printf("rule loaded: %zu instructions, prog fd %d\n", sizeof(rule) / sizeof(rule[0]),
	       userbpf_prog_fd(prog));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < RUNS; i++) {
		struct request req = {
			.uid = next_rand(&seed) % 100,
			.body_len = next_rand(&seed) % (2 << 20),
			.port = (next_rand(&seed) % 4) ? 443 : 22,
			.method = next_rand(&seed) % 2,
		};
		uint64_t verdict = userbpf_prog_run(prog, &req);

		counts[verdict == VERDICT_ALLOW]++;
		reasons[req.reason < 3 ? req.reason : 0]++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / RUNS;

	printf("%d requests: %" PRIu64 " allowed, %" PRIu64 " denied (%" PRIu64
	       " ssh by non-admins, %" PRIu64 " large POSTs)\n",
	       RUNS, counts[1], counts[0], reasons[1], reasons[2]);
	printf("%.1f ns per request (request generation included)\n", ns);
	userbpf_prog_free(prog);
	return 0;
}
