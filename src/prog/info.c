/* BPF_OBJ_GET_INFO_BY_FD for programs (struct bpf_prog_info), and the program tag.
 *
 * The tag is 6.18's: the first 8 bytes of the SHA-256 of the instructions as loaded (6.1 took
 * SHA-1), with the map fds of LD_IMM64 zeroed (they differ from run to run), computed before
 * verification.
 *
 * The info follows the kernel's bpf_prog_get_info_by_fd(): the caller's struct is read first
 * (its lengths and pointers say which arrays to fill and how much room they have), each array
 * field reports the full count and copies what fits, and info_len is written back.  Where
 * userbpf differs, by what it runs rather than by rule:
 *  - the "translated" program is userbpf's verified program (the kernel's is rewritten: context
 *    accesses, inlined helpers): its length, and a dump with map ids in LD_IMM64 as the kernel
 *    gives, and helper ids in calls;
 *  - the native code is the JIT's one image (subprograms included): one symbol, one length,
 *    one tag;
 *  - run_time_ns is the time of userbpf's runs (counted, with run_cnt, while a
 *    BPF_ENABLE_STATS fd is open: stats.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "btf/btf.h"
#include "exec/jit.h"
#include "map/map.h"
#include "insn.h"
#include "prog/prog.h"
#include "prog/sha256.h"

#define INFO_MAX_SIZE 4096u /* the kernel's PAGE_SIZE bound on info_len */

int prog_calc_tag(struct bpf_prog *prog)
{
	size_t size = (size_t)prog->len * sizeof(struct bpf_insn);
	struct bpf_insn *dst = malloc(size ? size : 1);
	uint8_t digest[SHA256_DIGEST_SIZE];
	bool was_ld_map = false;

	if (!dst)
		return -ENOMEM;
	for (u32 i = 0; i < prog->len; i++) {
		dst[i] = prog->insns[i];
		if (!was_ld_map && dst[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
		    (dst[i].src_reg == BPF_PSEUDO_MAP_FD ||
		     dst[i].src_reg == BPF_PSEUDO_MAP_VALUE)) {
			was_ld_map = true;
			dst[i].imm = 0;
		} else if (was_ld_map && !dst[i].code && !dst[i].dst_reg && !dst[i].src_reg &&
			   !dst[i].off) {
			was_ld_map = false;
			dst[i].imm = 0;
		} else {
			was_ld_map = false;
		}
	}
	sha256(dst, size, digest);
	memcpy(prog->tag, digest, sizeof(prog->tag));
	free(dst);
	prog->load_time = 0;
	{
		struct timespec ts;

		if (!clock_gettime(CLOCK_BOOTTIME, &ts))
			prog->load_time = (u64)ts.tv_sec * 1000000000u + (u64)ts.tv_nsec;
	}
	prog->uid = (u32)getuid();
	return 0;
}

/* The map and offset an LD_IMM64 of the verified program refers to (the kernel's
 * bpf_map_from_imm()), or NULL. */
static struct bpf_map *map_from_imm(const struct bpf_prog *prog, u64 addr, u32 *off)
{
	for (u32 i = 0; i < prog->used_map_cnt; i++) {
		struct bpf_map *m = prog->used_maps[i];
		u32 key = 0;
		u8 *v;

		if ((uintptr_t)m == addr) {
			*off = 0;
			return m;
		}
		v = m->map_type == BPF_MAP_TYPE_ARRAY && m->ops->lookup_ptr
			    ? m->ops->lookup_ptr(m, &key)
			    : NULL;
		if (v && addr >= (uintptr_t)v && addr < (uintptr_t)v + m->value_size) {
			*off = (u32)(addr - (uintptr_t)v);
			return m;
		}
	}
	return NULL;
}

/* The verified instructions as the kernel dumps them: map references as map ids. */
static struct bpf_insn *prepare_dump(const struct bpf_prog *prog)
{
	struct bpf_insn *insns = malloc((size_t)prog->len * sizeof(*insns) + 1);

	if (!insns)
		return NULL;
	memcpy(insns, prog->insns, (size_t)prog->len * sizeof(*insns));
	for (u32 i = 0; i < prog->len; i++) {
		struct bpf_map *m;
		u32 off;

		/* a probe load shows as the load it was */
		if (insn_is_probe_load(&insns[i]))
			insns[i].code = insn_probe_load_plain(insns[i].code);
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW) || i + 1 == prog->len)
			continue;
		m = map_from_imm(prog, (u64)(u32)insns[i + 1].imm << 32 | (u32)insns[i].imm, &off);
		if (m) {
			insns[i].imm = (s32)m->obj.id;
			insns[i + 1].imm = (s32)off;
			/* a map named by index shows as one named by fd, as the kernel's dump */
			if (insns[i].src_reg == BPF_PSEUDO_MAP_IDX)
				insns[i].src_reg = BPF_PSEUDO_MAP_FD;
			if (insns[i].src_reg == BPF_PSEUDO_MAP_IDX_VALUE)
				insns[i].src_reg = BPF_PSEUDO_MAP_VALUE;
		}
		i++;
	}
	return insns;
}

static int put_bytes(u64 uptr, const void *src, size_t n)
{
	void *dst = u64_to_ptr(uptr);

	if (!n)
		return 0;
	if (!dst)
		return -EFAULT;
	memcpy(dst, src, n);
	return 0;
}

/* The kernel's set_info_rec_size(): record sizes the caller gives must be ours. */
static int set_rec_sizes(struct bpf_prog_info *info)
{
	if ((info->nr_func_info || info->func_info_rec_size) &&
	    info->func_info_rec_size != sizeof(struct bpf_func_info))
		return -EINVAL;
	if ((info->nr_line_info || info->line_info_rec_size) &&
	    info->line_info_rec_size != sizeof(struct bpf_line_info))
		return -EINVAL;
	if ((info->nr_jited_line_info || info->jited_line_info_rec_size) &&
	    info->jited_line_info_rec_size != sizeof(u64))
		return -EINVAL;
	info->func_info_rec_size = sizeof(struct bpf_func_info);
	info->line_info_rec_size = sizeof(struct bpf_line_info);
	info->jited_line_info_rec_size = sizeof(u64);
	return 0;
}

/* The arrays of info the caller asked for (a count and a pointer each). */
static int fill_arrays(const struct bpf_prog *prog, struct bpf_prog_info *info)
{
	size_t code_len = 0;
	const void *code = prog->jit ? jit_code(prog->jit, &code_len) : NULL;
	u32 ulen, *ids;
	int err;

	ulen = info->nr_map_ids;
	err = prog_map_ids(prog, &ids, &info->nr_map_ids);
	if (err)
		return err;
	if (ulen > info->nr_map_ids)
		ulen = info->nr_map_ids;
	err = put_bytes(info->map_ids, ids, 4ull * ulen);
	free(ids);
	if (err)
		return err;
	err = set_rec_sizes(info);
	if (err)
		return err;
	info->run_time_ns = __atomic_load_n(&prog->stats.nsecs, __ATOMIC_RELAXED);
	info->run_cnt = __atomic_load_n(&prog->stats.cnt, __ATOMIC_RELAXED);
	info->recursion_misses = 0;
	info->verified_insns = prog->verified_insns;
	if (prog->btf) /* (else the caller's value stays, as the kernel leaves it) */
		info->btf_id = prog->btf->obj.id;

	ulen = info->xlated_prog_len;
	info->xlated_prog_len = prog->len * (u32)sizeof(struct bpf_insn);
	if (info->xlated_prog_len && ulen) {
		struct bpf_insn *dump = prepare_dump(prog);

		if (!dump)
			return -ENOMEM;
		err = put_bytes(info->xlated_prog_insns, dump,
				ulen < info->xlated_prog_len ? ulen : info->xlated_prog_len);
		free(dump);
		if (err)
			return err;
	}
	ulen = info->jited_prog_len;
	info->jited_prog_len = (u32)code_len;
	if (code_len && ulen) {
		err = put_bytes(info->jited_prog_insns, code, ulen < code_len ? ulen : code_len);
		if (err)
			return err;
	}
	ulen = info->nr_jited_ksyms;
	info->nr_jited_ksyms = 1;
	if (ulen) {
		u64 addr = (uintptr_t)code;

		err = put_bytes(info->jited_ksyms, &addr, sizeof(addr));
		if (err)
			return err;
	}
	ulen = info->nr_jited_func_lens;
	info->nr_jited_func_lens = 1;
	if (ulen) {
		u32 len32 = (u32)code_len;

		err = put_bytes(info->jited_func_lens, &len32, sizeof(len32));
		if (err)
			return err;
	}
	ulen = info->nr_func_info;
	info->nr_func_info = prog->func_info_cnt;
	if (info->nr_func_info && ulen) {
		err = put_bytes(info->func_info, prog->func_info,
				(size_t)(ulen < prog->func_info_cnt ? ulen : prog->func_info_cnt) *
					sizeof(struct bpf_func_info));
		if (err)
			return err;
	}
	ulen = info->nr_line_info;
	info->nr_line_info = prog->nr_linfo;
	if (info->nr_line_info && ulen) {
		err = put_bytes(info->line_info, prog->linfo,
				(size_t)(ulen < prog->nr_linfo ? ulen : prog->nr_linfo) *
					sizeof(struct bpf_line_info));
		if (err)
			return err;
	}
	info->nr_jited_line_info = 0;
	ulen = info->nr_prog_tags;
	info->nr_prog_tags = 1;
	if (ulen)
		return put_bytes(info->prog_tags, prog->tag, sizeof(prog->tag));
	return 0;
}

int prog_get_info(struct bpf_prog *prog, const union bpf_attr *attr, union bpf_attr *uattr)
{
	struct bpf_prog_info info, *uinfo = u64_to_ptr(attr->info.info);
	u32 info_len = attr->info.info_len;
	const size_t expected = offsetof(struct bpf_prog_info, attach_btf_id) + sizeof(u32);
	int err;

	if (info_len > INFO_MAX_SIZE)
		return -E2BIG;
	if (info_len > expected) {
		const u8 *tail = (const u8 *)uinfo + expected;

		if (!uinfo)
			return -EFAULT;
		for (u32 i = 0; i < info_len - expected; i++)
			if (tail[i])
				return -E2BIG;
	}
	if (info_len > sizeof(info))
		info_len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (info_len && !uinfo)
		return -EFAULT;
	memcpy(&info, uinfo ? (const void *)uinfo : (const void *)&info, info_len);

	info.type = prog->type;
	info.id = prog->obj.id;
	info.load_time = prog->load_time;
	info.created_by_uid = prog->uid;
	info.gpl_compatible = prog->gpl_compatible;
	memcpy(info.tag, prog->tag, sizeof(info.tag));
	memcpy(info.name, prog->name, sizeof(info.name));
	err = fill_arrays(prog, &info);
	if (err)
		return err;
	/* (attach_btf_obj_id stays 0: the kernel's BTF is no BTF object of userbpf's) */
	info.attach_btf_id = prog->attach.btf_id;
	if (info_len)
		memcpy(uinfo, &info, info_len);
	memcpy(&uattr->info.info_len, &info_len, sizeof(info_len));
	return 0;
}
