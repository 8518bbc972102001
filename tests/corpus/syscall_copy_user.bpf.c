/* A syscall program (sleepable) that reads its caller's memory, as a loader or a control-plane
 * program does: the ctx names a request struct and a path string in the caller's address space;
 * bpf_copy_from_user() brings the struct in, the kfunc bpf_copy_from_user_str() the path (its
 * tail zeroed: BPF_F_PAD_ZEROS).  What each returned and what it read go back in the ctx. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __ksym;

struct request { __u32 op, flags; __u64 cookie; };

struct args {
	__u64 req_ptr, path_ptr;	/* the caller's addresses */
	struct request req;		/* out: the request read */
	char path[24];			/* out: the path read */
	int req_ret, path_ret;		/* out: what each copy returned */
	__u32 checksum;			/* out: of the request, if it was read */
};

SEC("syscall") int syscall_copy_user(struct args *ctx)
{
	struct request req;
	char path[24];

	ctx->req_ret = bpf_copy_from_user(&req, sizeof(req), (const void *)ctx->req_ptr);
	ctx->path_ret = bpf_copy_from_user_str(path, sizeof(path), (const void *)ctx->path_ptr,
					       1 /* BPF_F_PAD_ZEROS */);
	__builtin_memcpy(&ctx->req, &req, sizeof(req));
	__builtin_memcpy(ctx->path, path, sizeof(path));
	ctx->checksum = ctx->req_ret ? 0 : req.op * 31 + req.flags * 7 + (__u32)req.cookie;
	return ctx->req_ret || ctx->path_ret < 0;
}

char _license[] SEC("license") = "GPL";
