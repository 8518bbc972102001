/* XDP calling the string kfuncs (bpf_strcmp() ... bpf_strnstr(), kernel 6.17 and later),
 * declared as a program declares them.  The packet asks for one call: its op, the strings' two
 * sources and two integer arguments.  A source is one of the 16 strings of 32 bytes in `strs`
 * (0-15), a copy of one on the stack (32 + k), the 64 KiB unterminated string in `big` (16),
 * NULL (17), a small integer (18), or a string literal in .rodata (19).  The program returns the
 * kfunc's result. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_strcmp(const char *s1__ign, const char *s2__ign) __ksym;
extern int bpf_strcasecmp(const char *s1__ign, const char *s2__ign) __ksym;
extern int bpf_strchr(const char *s__ign, char c) __ksym;
extern int bpf_strchrnul(const char *s__ign, char c) __ksym;
extern int bpf_strnchr(const char *s__ign, __u64 count, char c) __ksym;
extern int bpf_strrchr(const char *s__ign, int c) __ksym;
extern int bpf_strlen(const char *s__ign) __ksym;
extern int bpf_strnlen(const char *s__ign, __u64 count) __ksym;
extern int bpf_strspn(const char *s__ign, const char *accept__ign) __ksym;
extern int bpf_strcspn(const char *s__ign, const char *reject__ign) __ksym;
extern int bpf_strstr(const char *s1__ign, const char *s2__ign) __ksym;
extern int bpf_strnstr(const char *s1__ign, const char *s2__ign, __u64 len) __ksym;

struct strs {
	char s[16][32];
};

struct big {
	char b[65536 + 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct strs);
} strs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct big);
} big SEC(".maps");

struct req {
	__u8 op, a, b, pad;
	__u32 arg, arg2;
};

static __always_inline const char *pick(__u8 sel, struct strs *v, struct big *g, char *buf)
{
	if (sel < 16)
		return v->s[sel];
	if (sel >= 32) {
		__builtin_memcpy(buf, v->s[sel & 15], 32);
		return buf;
	}
	switch (sel) {
	case 16:
		return g->b;
	case 17:
		return 0;
	case 18:
		return (const char *)1234;
	default:
		return "literal";
	}
}

SEC("xdp") int xdp_string_kfuncs(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct req *r = data;
	char buf1[32], buf2[32];
	const char *s1, *s2;
	__u32 key = 0;
	struct strs *v;
	struct big *g;

	if ((void *)(r + 1) > end)
		return -100;
	v = bpf_map_lookup_elem(&strs, &key);
	g = bpf_map_lookup_elem(&big, &key);
	if (!v || !g)
		return -101;
	s1 = pick(r->a, v, g, buf1);
	s2 = pick(r->b, v, g, buf2);
	switch (r->op) {
	case 0:
		return bpf_strcmp(s1, s2);
	case 1:
		return bpf_strcasecmp(s1, s2);
	case 2:
		return bpf_strchr(s1, (char)r->arg);
	case 3:
		return bpf_strchrnul(s1, (char)r->arg);
	case 4:
		return bpf_strnchr(s1, r->arg, (char)r->arg2);
	case 5:
		return bpf_strrchr(s1, (int)r->arg);
	case 6:
		return bpf_strlen(s1);
	case 7:
		return bpf_strnlen(s1, r->arg);
	case 8:
		return bpf_strspn(s1, s2);
	case 9:
		return bpf_strcspn(s1, s2);
	case 10:
		return bpf_strstr(s1, s2);
	case 11:
		return bpf_strnstr(s1, s2, r->arg);
	}
	return -102;
}

char LICENSE[] SEC("license") = "GPL";
