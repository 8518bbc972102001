/* conformance_asm.c — assembler for the conformance suite's syntax (see conformance_asm.h).
 *
 * Algorithm: one pass over the lines.  Each line is split into whitespace-separated tokens (a
 * trailing ',' is dropped); "name:" defines a label at the current slot; "lock [fetch] op" is
 * folded into one mnemonic; the mnemonic is looked up in INSN_LIST, and where several forms share
 * it (K vs X, the LD_IMM64 pseudo forms) the operand shape picks one.  Jump and local-call
 * targets that name a label are recorded and patched after the pass (target - slot - 1).
 * Invariant: fixups[i] refers to a slot already emitted; out grows by doubling.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "insn.h"
#include "conformance_asm.h"

#define MAX_TOK 8
#define MAX_NAME 64

struct label {
	char name[MAX_NAME];
	int slot;
};

struct fixup {
	char name[MAX_NAME];
	int slot;
	int in_imm; /* patch imm (JA32, call local) rather than off */
	int line;
};

struct casm {
	struct bpf_insn *insns;
	int n, cap;
	struct label *labels;
	int nlabels, label_cap;
	struct fixup *fixups;
	int nfixups, fixup_cap;
	int line;
	char *err;
	size_t errlen;
};

static int fail(struct casm *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct casm *a, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(a->err, a->errlen, "line %d: ", a->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < a->errlen)
		vsnprintf(a->err + n, a->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void *grow(void *p, int *cap, size_t elem)
{
	int ncap = *cap ? *cap * 2 : 16;
	void *np = realloc(p, (size_t)ncap * elem);

	if (np)
		*cap = ncap;
	return np;
}

static struct bpf_insn *emit(struct casm *a)
{
	if (a->n == a->cap) {
		struct bpf_insn *np = grow(a->insns, &a->cap, sizeof(*np));

		if (!np)
			return NULL;
		a->insns = np;
	}
	memset(&a->insns[a->n], 0, sizeof(a->insns[0]));
	return &a->insns[a->n++];
}

static int find_label(const struct casm *a, const char *name)
{
	for (int i = 0; i < a->nlabels; i++)
		if (!strcmp(a->labels[i].name, name))
			return a->labels[i].slot;
	return -1;
}

static int add_label(struct casm *a, const char *name, int slot)
{
	if (strlen(name) >= MAX_NAME || !*name)
		return fail(a, "bad label '%s'", name);
	if (find_label(a, name) >= 0)
		return fail(a, "duplicate label '%s'", name);
	if (a->nlabels == a->label_cap) {
		struct label *np = grow(a->labels, &a->label_cap, sizeof(*np));

		if (!np)
			return -ENOMEM;
		a->labels = np;
	}
	strcpy(a->labels[a->nlabels].name, name);
	a->labels[a->nlabels++].slot = slot;
	return 0;
}

/* Returns the register number of "%rN" or a negative errno. */
static int parse_reg(struct casm *a, const char *s)
{
	char *end;
	long v;

	if (s[0] != '%' || s[1] != 'r' || !isdigit((unsigned char)s[2]))
		return fail(a, "expected a register, got '%s'", s);
	v = strtol(s + 2, &end, 10);
	if (*end || v > 10)
		return fail(a, "bad register '%s'", s);
	return (int)v;
}

/* struct bpf_insn's registers are bit-fields, hence setters rather than pointers. */
static int set_dst(struct casm *a, struct bpf_insn *in, const char *s)
{
	int r = parse_reg(a, s);

	if (r >= 0)
		in->dst_reg = r;
	return r < 0 ? r : 0;
}

static int set_src(struct casm *a, struct bpf_insn *in, const char *s)
{
	int r = parse_reg(a, s);

	if (r >= 0)
		in->src_reg = r;
	return r < 0 ? r : 0;
}

/* A signed decimal or (optionally negative) hex number in [lo, hi]; hex may also use the unsigned
 * range of the same width (0xffffffff for an imm32). */
static int parse_num(struct casm *a, const char *s, int64_t lo, int64_t hi, uint64_t uhi,
		     int64_t *out)
{
	const char *p = s;
	int neg = 0;
	char *end;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return fail(a, "expected a number, got '%s'", s);
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		uint64_t u = strtoull(p + 2, &end, 16);

		if (errno || *end || end == p + 2 || (!neg && u > uhi) ||
		    (neg && u > (uint64_t)-(lo + 1) + 1))
			return fail(a, "number out of range '%s'", s);
		*out = neg ? (int64_t)(0 - u) : (int64_t)u;
		return 0;
	}
	if (neg) {
		int64_t v = strtoll(s, &end, 10);

		if (errno || *end || v < lo)
			return fail(a, "number out of range '%s'", s);
		*out = v;
		return 0;
	}
	uint64_t u = strtoull(p, &end, 10);

	if (errno || *end || (u > (uint64_t)hi && u > uhi))
		return fail(a, "number out of range '%s'", s);
	*out = (int64_t)u;
	return 0;
}

static int parse_imm32(struct casm *a, const char *s, int32_t *imm)
{
	int64_t v;
	int err = parse_num(a, s, INT32_MIN, INT32_MAX, UINT32_MAX, &v);

	*imm = (int32_t)(uint32_t)v;
	return err;
}

/* "[%rN+off]", "[%rN-off]" or "[%rN]" into off and dst_reg (or src_reg if use_src). */
static int parse_mem(struct casm *a, const char *s, struct bpf_insn *in, int use_src)
{
	char buf[MAX_NAME];
	size_t len = strlen(s);
	char *sign;
	int64_t v = 0;
	int err;

	if (len < 3 || len >= sizeof(buf) || s[0] != '[' || s[len - 1] != ']')
		return fail(a, "expected [%%rN+off], got '%s'", s);
	memcpy(buf, s + 1, len - 2);
	buf[len - 2] = 0;
	sign = strpbrk(buf, "+-");
	if (sign) {
		err = parse_num(a, sign, INT16_MIN, INT16_MAX, UINT16_MAX, &v);
		if (err)
			return err;
		*sign = 0;
	}
	in->off = (int16_t)(uint16_t)v;
	return use_src ? set_src(a, in, buf) : set_dst(a, in, buf);
}

/* A jump target: "+N"/"-N" is an offset, anything else a label patched later. */
static int parse_target(struct casm *a, const char *s, int in_imm)
{
	struct bpf_insn *in = &a->insns[a->n - 1];
	int64_t v;
	int err;

	if (s[0] == '+' || s[0] == '-') {
		if (in_imm)
			err = parse_num(a, s, INT32_MIN, INT32_MAX, UINT32_MAX, &v);
		else
			err = parse_num(a, s, INT16_MIN, INT16_MAX, UINT16_MAX, &v);
		if (err)
			return err;
		if (in_imm)
			in->imm = (int32_t)v;
		else
			in->off = (int16_t)v;
		return 0;
	}
	if (strlen(s) >= MAX_NAME)
		return fail(a, "label too long");
	if (a->nfixups == a->fixup_cap) {
		struct fixup *np = grow(a->fixups, &a->fixup_cap, sizeof(*np));

		if (!np)
			return -ENOMEM;
		a->fixups = np;
	}
	strcpy(a->fixups[a->nfixups].name, s);
	a->fixups[a->nfixups].slot = a->n - 1;
	a->fixups[a->nfixups].in_imm = in_imm;
	a->fixups[a->nfixups++].line = a->line;
	return 0;
}

static int is_reg(const char *s)
{
	return s[0] == '%';
}

/* The form for mnem whose operand shape matches: want_x selects BPF_X over BPF_K forms. */
static int lookup(const char *mnem, int want_x)
{
	const struct insn_desc *d = insn_descs();
	int any = -1;

	for (int i = 0; i < INSN__COUNT; i++) {
		if (strcmp(d[i].mnem, mnem))
			continue;
		if (d[i].kind == INSN_K_LDDW && d[i].dval != 0)
			continue; /* pseudo forms are for loaders, not written in this syntax */
		if (d[i].kind == INSN_K_ALU || d[i].kind == INSN_K_JCOND) {
			if ((BPF_SRC(d[i].code) == BPF_X) == want_x)
				return i;
			continue;
		}
		if (any < 0)
			any = i;
	}
	return any;
}

static int assemble_line(struct casm *a, char **tok, int ntok)
{
	const struct insn_desc *d;
	struct bpf_insn *in;
	char mnem[3 * MAX_NAME];
	char **ops = tok + 1;
	int nops = ntok - 1, id, err = 0, want_x = 0;

	/* Fold the spellings that take several words into one mnemonic. */
	snprintf(mnem, sizeof(mnem), "%s", tok[0]);
	if (!strncmp(tok[0], "swap", 4)) {
		snprintf(mnem, sizeof(mnem), "b%s", tok[0]); /* swapN is an alias of bswapN */
	} else if (!strcmp(tok[0], "lock")) {
		int fetch = nops > 0 && !strcmp(ops[0], "fetch");

		if (nops < 1 + fetch)
			return fail(a, "lock without an operation");
		snprintf(mnem, sizeof(mnem), "lock %s%s", fetch ? "fetch " : "", ops[fetch]);
		ops += 1 + fetch;
		nops -= 1 + fetch;
	} else if (!strcmp(tok[0], "call")) {
		if (nops == 2 && !strcmp(ops[0], "helper")) {
			ops++;
			nops--;
		}
		if (nops == 2 && (!strcmp(ops[0], "local") || !strcmp(ops[0], "runtime"))) {
			snprintf(mnem, sizeof(mnem), "call %s", ops[0]);
			ops++;
			nops--;
		} else if (nops == 1 && is_reg(ops[0])) {
			strcpy(mnem, "callx");
		}
	}
	if (nops > 0)
		want_x = is_reg(ops[nops - 1]);
	if (nops == 3)
		want_x = is_reg(ops[1]); /* conditional jump: dst, src, target */
	id = lookup(mnem, want_x);
	if (id < 0)
		return fail(a, "unknown mnemonic '%s'", mnem);
	d = &insn_descs()[id];
	in = emit(a);
	if (!in)
		return -ENOMEM;
	in->code = d->code;
	switch (d->disc) {
	case INSN_D_OFF:
		in->off = (int16_t)d->dval;
		break;
	case INSN_D_IMM:
		in->imm = d->dval;
		break;
	case INSN_D_SRC:
		in->src_reg = (uint8_t)d->dval;
		break;
	}

#define NOPS(k)                                                                                    \
	do {                                                                                       \
		if (nops != (k))                                                                   \
			return fail(a, "'%s' takes %d operand(s), got %d", mnem, (k), nops);       \
	} while (0)

	switch (d->kind) {
	case INSN_K_ALU:
		NOPS(2);
		err = set_dst(a, in, ops[0]);
		if (!err)
			err = want_x ? set_src(a, in, ops[1]) :
				       parse_imm32(a, ops[1], &in->imm);
		break;
	case INSN_K_MOVSX:
		NOPS(2);
		err = set_dst(a, in, ops[0]);
		if (!err)
			err = set_src(a, in, ops[1]);
		break;
	case INSN_K_NEG:
	case INSN_K_END:
		NOPS(1);
		err = set_dst(a, in, ops[0]);
		break;
	case INSN_K_JA:
		NOPS(1);
		err = parse_target(a, ops[0], d->code == (BPF_JMP32 | BPF_JA));
		break;
	case INSN_K_MAY_GOTO: /* "may_goto label" */
		NOPS(1);
		err = parse_target(a, ops[0], 0);
		break;
	case INSN_K_JCOND:
		NOPS(3);
		err = set_dst(a, in, ops[0]);
		if (!err)
			err = want_x ? set_src(a, in, ops[1]) :
				       parse_imm32(a, ops[1], &in->imm);
		if (!err)
			err = parse_target(a, ops[2], 0);
		break;
	case INSN_K_CALL:
		NOPS(1);
		if (d->op == INSN_OP_REG)
			err = set_dst(a, in, ops[0]);
		else if (d->op == INSN_OP_LOCAL)
			err = parse_target(a, ops[0], 1);
		else
			err = parse_imm32(a, ops[0], &in->imm);
		break;
	case INSN_K_EXIT:
		NOPS(0);
		if (find_label(a, "exit") < 0)
			err = add_label(a, "exit", a->n - 1);
		break;
	case INSN_K_LDDW: {
		struct bpf_insn *hi;
		int64_t v;

		NOPS(2);
		err = set_dst(a, in, ops[0]);
		if (!err)
			err = parse_num(a, ops[1], INT64_MIN, INT64_MAX, UINT64_MAX, &v);
		if (err)
			break;
		hi = emit(a);
		if (!hi)
			return -ENOMEM;
		in = hi - 1; /* emit() may have moved the array */
		in->imm = (int32_t)(uint32_t)(uint64_t)v;
		hi->imm = (int32_t)(uint32_t)((uint64_t)v >> 32);
		break;
	}
	case INSN_K_LDPKT:
		if (d->op == INSN_OP_IND) {
			NOPS(2);
			err = set_src(a, in, ops[0]);
			if (!err)
				err = parse_imm32(a, ops[1], &in->imm);
		} else {
			NOPS(1);
			err = parse_imm32(a, ops[0], &in->imm);
		}
		break;
	case INSN_K_LDX:
	case INSN_K_LDXSX:
		NOPS(2);
		err = set_dst(a, in, ops[0]);
		if (!err)
			err = parse_mem(a, ops[1], in, 1);
		break;
	case INSN_K_ST:
		NOPS(2);
		err = parse_mem(a, ops[0], in, 0);
		if (!err)
			err = parse_imm32(a, ops[1], &in->imm);
		break;
	case INSN_K_STX:
	case INSN_K_ATOMIC:
		NOPS(2);
		err = parse_mem(a, ops[0], in, 0);
		if (!err)
			err = set_src(a, in, ops[1]);
		break;
	default:
		return fail(a, "cannot assemble '%s'", mnem);
	}
#undef NOPS
	return err;
}

int casm_assemble(const char *text, struct bpf_insn **out, char *err, size_t errlen)
{
	struct casm a = { .err = err, .errlen = errlen };
	const char *p = text;
	int ret = 0;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	while (*p && !ret) {
		char line[512], *tok[MAX_TOK], *s, *save;
		size_t len = strcspn(p, "\n");
		int ntok = 0;

		a.line++;
		if (len >= sizeof(line)) {
			ret = fail(&a, "line too long");
			break;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p += len + (p[len] == '\n');
		s = strchr(line, '#');
		if (s)
			*s = 0;
		for (s = strtok_r(line, " \t\r", &save); s; s = strtok_r(NULL, " \t\r", &save)) {
			size_t l = strlen(s);

			if (ntok == MAX_TOK) {
				ret = fail(&a, "too many operands");
				break;
			}
			if (ntok > 0 && l > 1 && s[l - 1] == ',')
				s[l - 1] = 0;
			tok[ntok++] = s;
		}
		if (ret || ntok == 0)
			continue;
		if (tok[0][strlen(tok[0]) - 1] == ':') {
			tok[0][strlen(tok[0]) - 1] = 0;
			ret = ntok == 1 ? add_label(&a, tok[0], a.n) : fail(&a, "text after label");
			continue;
		}
		ret = assemble_line(&a, tok, ntok);
	}
	for (int i = 0; i < a.nfixups && !ret; i++) {
		struct fixup *f = &a.fixups[i];
		int t = find_label(&a, f->name);

		a.line = f->line;
		if (t < 0) {
			ret = fail(&a, "undefined label '%s'", f->name);
			break;
		}
		if (f->in_imm)
			a.insns[f->slot].imm = t - f->slot - 1;
		else
			a.insns[f->slot].off = (int16_t)(t - f->slot - 1);
	}
	free(a.labels);
	free(a.fixups);
	if (!ret && a.n == 0)
		ret = fail(&a, "no instructions");
	if (ret) {
		free(a.insns);
		return ret;
	}
	*out = a.insns;
	return a.n;
}
