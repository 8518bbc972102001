/* Parsing a BPF ELF object at open: everything that can be checked before any map or program
 * exists is checked here, so that a malformed object fails at open with a message naming the
 * section and symbol.
 *
 * Algorithm, one pass per concern over the image (our private copy of the file):
 *  1. the ELF header through libelf: ELF64, host byte order, ET_REL, EM_BPF;
 *  2. section headers: each section's bytes must lie within the image; sections are classified
 *     by name and flags (code, .maps, legacy maps, global data, license, version);
 *  3. the symbol table: STT_FUNC symbols in code sections become functions (programs outside
 *     .text, subprograms in .text), symbols in map sections become maps; global-data sections
 *     become one map each;
 *  4. relocation sections of code sections: each entry is resolved to a map, a global-data
 *     offset or a callee function; bpf-to-bpf calls the assembler resolved itself (no
 *     relocation) are added as call relocations too.
 * Section and symbol data are read with memcpy from the image, never through casts: a malformed
 * object may put them at any alignment.  Pointers into the image stay valid until close.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf/vmlinux.h"
#include "loader.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif
#ifndef R_BPF_NONE
#define R_BPF_NONE 0
#endif
#ifndef R_BPF_64_64
#define R_BPF_64_64 1
#endif
#ifndef R_BPF_64_32
#define R_BPF_64_32 10
#endif

/* The last map type of Linux 6.18 (BPF_MAP_TYPE_ARENA); our uapi header may be older. */
#define LD_MAX_MAP_TYPE 33u

/* The Unix socket hooks of cgroup sock_addr programs (6.7+: connect, sendmsg, recvmsg,
 * getpeername, getsockname), past what Debian 12's uapi header names. */
#define ATTACH_UNIX(i) ((enum bpf_attach_type)(49 + (i)))
/* And the other ids of 6.4+ that libbpf's section names imply. */
#define ATTACH_NETFILTER ((enum bpf_attach_type)45)
#define ATTACH_TCX_INGRESS ((enum bpf_attach_type)46)
#define ATTACH_TCX_EGRESS ((enum bpf_attach_type)47)
#define ATTACH_UPROBE_MULTI ((enum bpf_attach_type)48)
#define ATTACH_NETKIT_PRIMARY ((enum bpf_attach_type)54)
#define ATTACH_NETKIT_PEER ((enum bpf_attach_type)55)
#define ATTACH_KPROBE_SESSION ((enum bpf_attach_type)56)
#define PROG_TYPE_NETFILTER ((enum bpf_prog_type)32)

/* Programs types by section name: "name" or "name/anything" (libbpf's names; a leading '?' is
 * stripped first: the program is not loaded unless asked for).  Some are types userbpf
 * cannot load (tracing, LSM, struct_ops...): an object holding them still opens, and its
 * other programs load once those are left out (userbpf_program_set_autoload()). */
static const struct {
	const char *prefix;
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	u32 flags; /* BPF_PROG_LOAD's prog_flags */
} sec_defs[] = {
    /* (a specific form before the plain one, which also matches it) */
    {"xdp/devmap", BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, 0},
    {"xdp/cpumap", BPF_PROG_TYPE_XDP, BPF_XDP_CPUMAP, 0},
    {"xdp.frags/devmap", BPF_PROG_TYPE_XDP, BPF_XDP_DEVMAP, BPF_F_XDP_HAS_FRAGS},
    {"xdp.frags/cpumap", BPF_PROG_TYPE_XDP, BPF_XDP_CPUMAP, BPF_F_XDP_HAS_FRAGS},
    {"tc/ingress", BPF_PROG_TYPE_SCHED_CLS, ATTACH_TCX_INGRESS, 0},
    {"tc/egress", BPF_PROG_TYPE_SCHED_CLS, ATTACH_TCX_EGRESS, 0},
    {"socket", BPF_PROG_TYPE_SOCKET_FILTER, 0, 0},	 {"xdp", BPF_PROG_TYPE_XDP, BPF_XDP, 0},
    {"xdp.frags", BPF_PROG_TYPE_XDP, BPF_XDP, BPF_F_XDP_HAS_FRAGS},
    {"tcx/ingress", BPF_PROG_TYPE_SCHED_CLS, ATTACH_TCX_INGRESS, 0},
    {"tcx/egress", BPF_PROG_TYPE_SCHED_CLS, ATTACH_TCX_EGRESS, 0},
    {"netkit/primary", BPF_PROG_TYPE_SCHED_CLS, ATTACH_NETKIT_PRIMARY, 0},
    {"netkit/peer", BPF_PROG_TYPE_SCHED_CLS, ATTACH_NETKIT_PEER, 0},
    {"uprobe.multi", BPF_PROG_TYPE_KPROBE, ATTACH_UPROBE_MULTI, 0},
    {"uretprobe.multi", BPF_PROG_TYPE_KPROBE, ATTACH_UPROBE_MULTI, 0},
    {"uprobe.multi.s", BPF_PROG_TYPE_KPROBE, ATTACH_UPROBE_MULTI, BPF_F_SLEEPABLE},
    {"uretprobe.multi.s", BPF_PROG_TYPE_KPROBE, ATTACH_UPROBE_MULTI, BPF_F_SLEEPABLE},
    {"kprobe.session", BPF_PROG_TYPE_KPROBE, ATTACH_KPROBE_SESSION, 0},
    {"netfilter", PROG_TYPE_NETFILTER, ATTACH_NETFILTER, 0},
    {"syscall", BPF_PROG_TYPE_SYSCALL, 0, BPF_F_SLEEPABLE},
    {"kprobe.s", BPF_PROG_TYPE_KPROBE, 0, BPF_F_SLEEPABLE},
    {"uprobe", BPF_PROG_TYPE_KPROBE, 0, 0},	 {"uretprobe", BPF_PROG_TYPE_KPROBE, 0, 0},
    {"uprobe.s", BPF_PROG_TYPE_KPROBE, 0, BPF_F_SLEEPABLE},
    {"uretprobe.s", BPF_PROG_TYPE_KPROBE, 0, BPF_F_SLEEPABLE},
    {"usdt", BPF_PROG_TYPE_KPROBE, 0, 0},		 {"ksyscall", BPF_PROG_TYPE_KPROBE, 0, 0},
    {"kretsyscall", BPF_PROG_TYPE_KPROBE, 0, 0},
    {"kprobe.multi", BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0},
    {"kretprobe.multi", BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0},
    {"fentry", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, 0},
    {"fexit", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, 0},
    {"fmod_ret", BPF_PROG_TYPE_TRACING, BPF_MODIFY_RETURN, 0},
    {"fentry.s", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, BPF_F_SLEEPABLE},
    {"fexit.s", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, BPF_F_SLEEPABLE},
    {"fmod_ret.s", BPF_PROG_TYPE_TRACING, BPF_MODIFY_RETURN, BPF_F_SLEEPABLE},
    {"tp_btf", BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, 0},
    {"iter", BPF_PROG_TYPE_TRACING, BPF_TRACE_ITER, 0},
    {"iter.s", BPF_PROG_TYPE_TRACING, BPF_TRACE_ITER, BPF_F_SLEEPABLE},
    {"lsm", BPF_PROG_TYPE_LSM, BPF_LSM_MAC, 0},
    {"lsm.s", BPF_PROG_TYPE_LSM, BPF_LSM_MAC, BPF_F_SLEEPABLE},
    {"lsm_cgroup", BPF_PROG_TYPE_LSM, BPF_LSM_CGROUP, 0},
    {"struct_ops", BPF_PROG_TYPE_STRUCT_OPS, 0, 0},
    {"struct_ops.s", BPF_PROG_TYPE_STRUCT_OPS, 0, BPF_F_SLEEPABLE},
    {"freplace", BPF_PROG_TYPE_EXT, 0, 0},
    {"sk_reuseport/migrate", BPF_PROG_TYPE_SK_REUSEPORT, BPF_SK_REUSEPORT_SELECT_OR_MIGRATE, 0},
    {"sk_reuseport", BPF_PROG_TYPE_SK_REUSEPORT, BPF_SK_REUSEPORT_SELECT, 0},
    {"lirc_mode2", BPF_PROG_TYPE_LIRC_MODE2, BPF_LIRC_MODE2, 0},
    {"lwt_seg6local", BPF_PROG_TYPE_LWT_SEG6LOCAL, 0, 0},
    {"raw_tracepoint.w", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, 0, 0},
    {"raw_tp.w", BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE, 0, 0},
    {"kprobe", BPF_PROG_TYPE_KPROBE, 0, 0},	 {"kretprobe", BPF_PROG_TYPE_KPROBE, 0, 0},
    {"tracepoint", BPF_PROG_TYPE_TRACEPOINT, 0, 0}, {"tp", BPF_PROG_TYPE_TRACEPOINT, 0, 0},
    {"perf_event", BPF_PROG_TYPE_PERF_EVENT, 0, 0},
    {"tc", BPF_PROG_TYPE_SCHED_CLS, 0, 0},		 {"classifier", BPF_PROG_TYPE_SCHED_CLS, 0, 0},
    {"action", BPF_PROG_TYPE_SCHED_ACT, 0, 0},
    {"raw_tracepoint", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0}, {"raw_tp", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0},
    {"cgroup_skb/ingress", BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS, 0},
    {"cgroup_skb/egress", BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_EGRESS, 0},
    {"cgroup/skb", BPF_PROG_TYPE_CGROUP_SKB, 0, 0},
    {"cgroup/sock_create", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, 0},
    {"cgroup/sock_release", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_RELEASE, 0},
    {"cgroup/post_bind4", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET4_POST_BIND, 0},
    {"cgroup/post_bind6", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET6_POST_BIND, 0},
    {"cgroup/sock", BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, 0},
    {"cgroup/dev", BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, 0},
    {"cgroup/sysctl", BPF_PROG_TYPE_CGROUP_SYSCTL, BPF_CGROUP_SYSCTL, 0},
    {"sockops", BPF_PROG_TYPE_SOCK_OPS, BPF_CGROUP_SOCK_OPS, 0},
    {"cgroup/getsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_GETSOCKOPT, 0},
    {"cgroup/setsockopt", BPF_PROG_TYPE_CGROUP_SOCKOPT, BPF_CGROUP_SETSOCKOPT, 0},
    {"cgroup/bind4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_BIND, 0},
    {"cgroup/bind6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_BIND, 0},
    {"cgroup/connect4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT, 0},
    {"cgroup/connect6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_CONNECT, 0},
    {"cgroup/connect_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, ATTACH_UNIX(0), 0},
    {"cgroup/sendmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_SENDMSG, 0},
    {"cgroup/sendmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_SENDMSG, 0},
    {"cgroup/sendmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, ATTACH_UNIX(1), 0},
    {"cgroup/recvmsg4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_RECVMSG, 0},
    {"cgroup/recvmsg6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_RECVMSG, 0},
    {"cgroup/recvmsg_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, ATTACH_UNIX(2), 0},
    {"cgroup/getpeername4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_GETPEERNAME, 0},
    {"cgroup/getpeername6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_GETPEERNAME, 0},
    {"cgroup/getpeername_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, ATTACH_UNIX(3), 0},
    {"cgroup/getsockname4", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_GETSOCKNAME, 0},
    {"cgroup/getsockname6", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_GETSOCKNAME, 0},
    {"cgroup/getsockname_unix", BPF_PROG_TYPE_CGROUP_SOCK_ADDR, ATTACH_UNIX(4), 0},
    {"lwt_in", BPF_PROG_TYPE_LWT_IN, 0, 0},	 {"lwt_out", BPF_PROG_TYPE_LWT_OUT, 0, 0},
    {"lwt_xmit", BPF_PROG_TYPE_LWT_XMIT, 0, 0},
    {"flow_dissector", BPF_PROG_TYPE_FLOW_DISSECTOR, BPF_FLOW_DISSECTOR, 0},
    {"sk_lookup", BPF_PROG_TYPE_SK_LOOKUP, BPF_SK_LOOKUP, 0},
    /* (the specific forms before the plain one, which also matches them) */
    {"sk_skb/stream_parser", BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_PARSER, 0},
    {"sk_skb/stream_verdict", BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_STREAM_VERDICT, 0},
    {"sk_skb/verdict", BPF_PROG_TYPE_SK_SKB, BPF_SK_SKB_VERDICT, 0},
    {"sk_skb", BPF_PROG_TYPE_SK_SKB, 0, 0},
    {"sk_msg", BPF_PROG_TYPE_SK_MSG, BPF_SK_MSG_VERDICT, 0},
};

int ld_prog_type_of(const char *sec, enum bpf_prog_type *type, enum bpf_attach_type *attach,
		    u32 *flags)
{
	if (*sec == '?')
		sec++;
	for (size_t i = 0; i < ARRAY_SIZE(sec_defs); i++) {
		size_t n = strlen(sec_defs[i].prefix);

		if (strncmp(sec, sec_defs[i].prefix, n) || (sec[n] && sec[n] != '/'))
			continue;
		*type = sec_defs[i].type;
		*attach = sec_defs[i].attach;
		if (flags)
			*flags = sec_defs[i].flags;
		return 0;
	}
	return -EOPNOTSUPP;
}

static bool is_data_sec(const char *name)
{
	return !strcmp(name, ".data") || !strcmp(name, ".rodata") || !strcmp(name, ".bss") ||
	       !strncmp(name, ".data.", 6) || !strncmp(name, ".rodata.", 8);
}

/* Parse state that does not outlive ld_elf_parse(). */
struct parse {
	size_t symtab; /* section index of .symtab, 0 if none */
	size_t strtab; /* its string table */
	size_t nsyms;
	size_t btf; /* section index of .BTF, 0 if none */
};

static int read_sym(const struct userbpf_object *obj, const struct parse *p, size_t i,
		    Elf64_Sym *sym)
{
	memcpy(sym, obj->secs[p->symtab].data + i * sizeof(*sym), sizeof(*sym));
	return 0;
}

static const char *sym_name(const struct userbpf_object *obj, const struct parse *p,
			    const Elf64_Sym *sym)
{
	const char *s = elf_strptr(obj->elf, p->strtab, sym->st_name);

	return s ? s : "<bad name>";
}

static int check_header(struct userbpf_object *obj)
{
	GElf_Ehdr ehdr;
	char *ident;

	if (elf_kind(obj->elf) != ELF_K_ELF)
		return ld_err(obj, -ENOEXEC, "not an ELF object");
	ident = elf_getident(obj->elf, NULL);
	if (!ident)
		return ld_err(obj, -ENOEXEC, "not an ELF object: %s", elf_errmsg(-1));
	if (ident[EI_CLASS] != ELFCLASS64)
		return ld_err(obj, -ENOEXEC,
			      "ELF class %d is not ELFCLASS64: BPF objects are 64-bit",
			      ident[EI_CLASS]);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (ident[EI_DATA] != ELFDATA2LSB)
#else
	if (ident[EI_DATA] != ELFDATA2MSB)
#endif
		return ld_err(obj, -ENOEXEC, "ELF byte order %d is not the host's", ident[EI_DATA]);
	if (!gelf_getehdr(obj->elf, &ehdr))
		return ld_err(obj, -ENOEXEC, "cannot read the ELF header: %s", elf_errmsg(-1));
	if (ehdr.e_machine != EM_BPF)
		return ld_err(obj, -ENOEXEC, "ELF machine %u is not EM_BPF (%u)", ehdr.e_machine,
			      EM_BPF);
	if (ehdr.e_type != ET_REL)
		return ld_err(obj, -ENOEXEC, "ELF type %u is not ET_REL (a relocatable object)",
			      ehdr.e_type);
	/* libelf silently sees no sections when their table is cut short: say so instead.  (With
	 * e_shnum 0 the count is in section 0, which must then be in the file: 1 entry.) */
	if (ehdr.e_shentsize != sizeof(Elf64_Shdr) || ehdr.e_shoff > obj->image_size ||
	    (obj->image_size - ehdr.e_shoff) / sizeof(Elf64_Shdr) <
		(ehdr.e_shnum ? ehdr.e_shnum : 1))
		return ld_err(obj, -EBADMSG,
			      "the section header table (%u entries of %u bytes at "
			      "offset %llu) extends past the end of the file (%zu bytes)",
			      ehdr.e_shnum, ehdr.e_shentsize, (unsigned long long)ehdr.e_shoff,
			      obj->image_size);
	return 0;
}

/* Step 2: section headers, their bytes and their kinds. */
static int parse_sections(struct userbpf_object *obj, struct parse *p)
{
	size_t shnum, shstrndx;

	if (elf_getshdrnum(obj->elf, &shnum) || elf_getshdrstrndx(obj->elf, &shstrndx))
		return ld_err(obj, -EBADMSG, "cannot read the section headers: %s", elf_errmsg(-1));
	obj->secs = calloc(shnum ? shnum : 1, sizeof(*obj->secs));
	if (!obj->secs)
		return ld_err(obj, -ENOMEM, "out of memory for %zu sections", shnum);
	obj->nsecs = shnum;
	for (size_t i = 1; i < shnum; i++) {
		struct ld_sec *s = &obj->secs[i];
		Elf_Scn *scn = elf_getscn(obj->elf, i);
		GElf_Shdr sh;

		s->map = -1;
		if (!scn || !gelf_getshdr(scn, &sh))
			return ld_err(obj, -EBADMSG, "section %zu: cannot read its header: %s", i,
				      elf_errmsg(-1));
		s->name = elf_strptr(obj->elf, shstrndx, sh.sh_name);
		if (!s->name)
			return ld_err(obj, -EBADMSG, "section %zu: name offset %u is invalid", i,
				      sh.sh_name);
		s->size = sh.sh_size;
		if (sh.sh_type != SHT_NOBITS && sh.sh_size) {
			/* Written as a subtraction so that offset + size cannot wrap. */
			if (sh.sh_offset > obj->image_size ||
			    sh.sh_size > obj->image_size - sh.sh_offset)
				return ld_err(obj, -EBADMSG,
					      "section '%s' (index %zu): %llu bytes at offset %llu "
					      "extend past the end of the file (%zu bytes)",
					      s->name, i, (unsigned long long)sh.sh_size,
					      (unsigned long long)sh.sh_offset, obj->image_size);
			s->data = (const u8 *)obj->image + sh.sh_offset;
		}

		if (sh.sh_type == SHT_SYMTAB) {
			if (p->symtab)
				return ld_err(obj, -EBADMSG, "section '%s': a second symbol table",
					      s->name);
			if (sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_size % sizeof(Elf64_Sym) ||
			    !sh.sh_link || sh.sh_link >= shnum)
				return ld_err(obj, -EBADMSG, "section '%s': malformed symbol table",
					      s->name);
			p->symtab = i;
			p->strtab = sh.sh_link;
			p->nsyms = sh.sh_size / sizeof(Elf64_Sym);
			obj->symtab = i;
			obj->strtab = sh.sh_link;
			obj->nsyms = p->nsyms;
		} else if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR)) {
			if (sh.sh_size % BPF_INSN_SZ)
				return ld_err(obj, -EBADMSG,
					      "section '%s': size %zu is not a whole number of "
					      "instructions",
					      s->name, s->size);
			s->kind = SEC_CODE;
		} else if (!strcmp(s->name, ".maps")) {
			s->kind = SEC_MAPS_BTF;
		} else if (!strcmp(s->name, "maps")) {
			s->kind = SEC_MAPS_LEGACY;
		} else if (!strcmp(s->name, "license")) {
			s->kind = SEC_LICENSE;
		} else if (!strcmp(s->name, "version")) {
			s->kind = SEC_VERSION;
		} else if (!strcmp(s->name, ".BTF")) {
			p->btf = i;
			obj->btf_sec = i;
		} else if (!strcmp(s->name, ".BTF.ext")) {
			obj->btf_ext_sec = i;
		} else if ((sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_NOBITS) &&
			   (sh.sh_flags & SHF_ALLOC) && is_data_sec(s->name)) {
			s->kind = SEC_DATA;
		}
		if (s->kind && s->kind != SEC_DATA && s->size && !s->data)
			return ld_err(obj, -EBADMSG,
				      "section '%s': has no bytes in the file (NOBITS)", s->name);
	}
	if (!p->symtab)
		return ld_err(obj, -EBADMSG, "no symbol table (.symtab)");
	return 0;
}

static int parse_license_version(struct userbpf_object *obj)
{
	for (size_t i = 1; i < obj->nsecs; i++) {
		const struct ld_sec *s = &obj->secs[i];

		if (s->kind == SEC_LICENSE) {
			if (!s->size || !memchr(s->data, '\0', s->size))
				return ld_err(obj, -EBADMSG,
					      "section 'license': not a NUL-terminated string");
			obj->license = (const char *)s->data;
			obj->has_license = true;
		} else if (s->kind == SEC_VERSION) {
			if (s->size != sizeof(u32))
				return ld_err(obj, -EBADMSG, "section 'version': %zu bytes, not 4",
					      s->size);
			memcpy(&obj->kversion, s->data, sizeof(u32));
		}
	}
	/* none: an empty license, as libbpf sends (the verifier then refuses GPL-only helpers
	 * with its own message) */
	if (!obj->has_license)
		obj->license = "";
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct ld_func *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_map(const void *a, const void *b)
{
	const struct userbpf_map *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->sec_off < y->sec_off ? -1 : x->sec_off > y->sec_off;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct ld_reloc *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->insn < y->insn ? -1 : x->insn > y->insn;
}

/* Step 3a: functions and programs. */
static int parse_funcs(struct userbpf_object *obj, const struct parse *p)
{
	size_t n = 0, np = 0;

	for (size_t i = 1; i < p->nsyms; i++) {
		Elf64_Sym sym;

		read_sym(obj, p, i, &sym);
		if (ELF64_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_shndx < obj->nsecs &&
		    obj->secs[sym.st_shndx].kind == SEC_CODE)
			n++;
	}
	obj->funcs = calloc(n ? n : 1, sizeof(*obj->funcs));
	if (!obj->funcs)
		return ld_err(obj, -ENOMEM, "out of memory for %zu functions", n);
	for (size_t i = 1; i < p->nsyms; i++) {
		struct ld_func *f = &obj->funcs[obj->nfuncs];
		const struct ld_sec *s;
		Elf64_Sym sym;

		read_sym(obj, p, i, &sym);
		if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx >= obj->nsecs ||
		    obj->secs[sym.st_shndx].kind != SEC_CODE)
			continue;
		s = &obj->secs[sym.st_shndx];
		f->name = sym_name(obj, p, &sym);
		/* Each test bounds one operand by the section size first, so nothing wraps. */
		if (!sym.st_size || sym.st_value % BPF_INSN_SZ || sym.st_size % BPF_INSN_SZ ||
		    sym.st_value > s->size || sym.st_size > s->size - sym.st_value)
			return ld_err(obj, -EBADMSG,
				      "section '%s': function '%s' (bytes %llu+%llu) is not whole "
				      "instructions inside the section (%zu bytes)",
				      s->name, f->name, (unsigned long long)sym.st_value,
				      (unsigned long long)sym.st_size, s->size);
		f->sec = sym.st_shndx;
		f->off = sym.st_value / BPF_INSN_SZ;
		f->cnt = sym.st_size / BPF_INSN_SZ;
		f->prog = strcmp(s->name, ".text") ? 0 : -1;
		if (f->prog == 0)
			np++;
		obj->nfuncs++;
	}
	qsort(obj->funcs, obj->nfuncs, sizeof(*obj->funcs), cmp_func);
	for (size_t i = 1; i < obj->nfuncs; i++) {
		const struct ld_func *a = &obj->funcs[i - 1], *b = &obj->funcs[i];

		if (a->sec == b->sec && a->off + a->cnt > b->off)
			return ld_err(obj, -EBADMSG,
				      "section '%s': functions '%s' and '%s' overlap",
				      obj->secs[a->sec].name, a->name, b->name);
	}

	obj->progs = calloc(np ? np : 1, sizeof(*obj->progs));
	if (!obj->progs)
		return ld_err(obj, -ENOMEM, "out of memory for %zu programs", np);
	for (size_t i = 0; i < obj->nfuncs; i++) {
		struct ld_func *f = &obj->funcs[i];
		struct userbpf_program *prog;

		if (f->prog < 0)
			continue;
		prog = &obj->progs[obj->nprogs];
		prog->name = f->name;
		prog->sec_name = obj->secs[f->sec].name;
		prog->func = i;
		prog->insn_cnt = f->cnt;
		/* (until the load relocates them: the function's own, as in the file) */
		prog->insns = malloc(f->cnt * sizeof(*prog->insns));
		if (!prog->insns)
			return ld_err(obj, -ENOMEM, "program '%s': out of memory", f->name);
		memcpy(prog->insns, obj->secs[f->sec].data + (size_t)f->off * BPF_INSN_SZ,
		       f->cnt * sizeof(*prog->insns));
		prog->fd = -1;
		prog->autoload = prog->sec_name[0] != '?';
		/* a section name that implies no type fails the program's load, not the open
		 * (libbpf's way: another program of the object may still be loaded) */
		if (ld_prog_type_of(prog->sec_name, &prog->type, &prog->attach_type,
				    &prog->prog_flags))
			prog->type = BPF_PROG_TYPE_UNSPEC;
		f->prog = obj->nprogs++;
	}
	return 0;
}

static int check_map_def(const struct userbpf_object *obj, const struct userbpf_map *m)
{
	if (!m->def.type || m->def.type > LD_MAX_MAP_TYPE)
		return ld_err(obj, -EINVAL, "section '%s': map '%s': unknown map type %u",
			      obj->secs[m->sec].name, m->name, m->def.type);
	return 0;
}

/* The legacy "maps" section: an array of struct bpf_map_def (5 u32: type, key_size,
 * value_size, max_entries, map_flags), possibly longer in old objects; the record size is the
 * section size over the number of map symbols, and bytes past the known fields must be zero. */
static int parse_legacy_map(struct userbpf_object *obj, struct userbpf_map *m, size_t nsyms)
{
	const struct ld_sec *s = &obj->secs[m->sec];
	const size_t known = 5 * sizeof(u32);
	size_t rec = s->size / nsyms;
	u32 f[5];

	if (s->size % nsyms || rec < known)
		return ld_err(obj, -EBADMSG,
			      "section 'maps': %zu bytes do not hold %zu struct bpf_map_def",
			      s->size, nsyms);
	if (m->sec_off % rec || m->sec_off > s->size - rec)
		return ld_err(obj, -EBADMSG,
			      "section 'maps': map '%s' at offset %llu is not a "
			      "record of %zu bytes",
			      m->name, (unsigned long long)m->sec_off, rec);
	memcpy(f, s->data + m->sec_off, known);
	for (size_t i = known; i < rec; i++)
		if (s->data[m->sec_off + i])
			return ld_err(obj, -EOPNOTSUPP,
				      "section 'maps': map '%s': non-zero field past map_flags "
				      "(byte %zu of %zu)",
				      m->name, i, rec);
	m->def.type = f[0];
	m->def.key_size = f[1];
	m->def.value_size = f[2];
	m->def.max_entries = f[3];
	m->def.map_flags = f[4];
	return 0;
}

/* Step 3b: maps of .maps, of "maps", and global data. */
static int parse_maps(struct userbpf_object *obj, const struct parse *p)
{
	size_t n = 0, nbtf = 0, nlegacy = 0;
	struct ld_btf_var *vars = NULL;
	int err = 0;

	for (size_t i = 1; i < p->nsyms; i++) {
		Elf64_Sym sym;

		read_sym(obj, p, i, &sym);
		if (ELF64_ST_TYPE(sym.st_info) == STT_SECTION || sym.st_shndx >= obj->nsecs)
			continue;
		if (obj->secs[sym.st_shndx].kind == SEC_MAPS_BTF)
			nbtf++;
		else if (obj->secs[sym.st_shndx].kind == SEC_MAPS_LEGACY)
			nlegacy++;
	}
	n = nbtf + nlegacy;
	for (size_t i = 1; i < obj->nsecs; i++)
		n += obj->secs[i].kind == SEC_DATA;
	/* (+ 1: the .kconfig map, if __kconfig externs turn up among the relocations) */
	obj->maps = calloc(n + 1, sizeof(*obj->maps));
	vars = calloc(nbtf ? nbtf : 1, sizeof(*vars));
	if (!obj->maps || !vars) {
		err = ld_err(obj, -ENOMEM, "out of memory for %zu maps", n);
		goto free_vars;
	}

	for (size_t i = 1; i < p->nsyms; i++) {
		struct userbpf_map *m = &obj->maps[obj->nmaps];
		Elf64_Sym sym;

		read_sym(obj, p, i, &sym);
		if (ELF64_ST_TYPE(sym.st_info) == STT_SECTION || sym.st_shndx >= obj->nsecs ||
		    (obj->secs[sym.st_shndx].kind != SEC_MAPS_BTF &&
		     obj->secs[sym.st_shndx].kind != SEC_MAPS_LEGACY))
			continue;
		m->name = sym_name(obj, p, &sym);
		m->sec = sym.st_shndx;
		m->sec_off = sym.st_value;
		m->fd = -1;
		obj->nmaps++;
	}
	qsort(obj->maps, obj->nmaps, sizeof(*obj->maps), cmp_map);

	nbtf = 0;
	for (size_t i = 0; i < obj->nmaps; i++) {
		struct userbpf_map *m = &obj->maps[i];

		if (obj->secs[m->sec].kind == SEC_MAPS_LEGACY) {
			err = parse_legacy_map(obj, m, nlegacy);
			if (err)
				goto free_vars;
		} else {
			vars[nbtf].name = m->name;
			vars[nbtf++].def = &m->def;
		}
	}
	if (nbtf) {
		if (!p->btf) {
			err = ld_err(obj, -ENOENT,
				     "section '.maps': map '%s' needs BTF, but there "
				     "is no '.BTF' section",
				     vars[0].name);
			goto free_vars;
		}
		err = ld_btf_map_defs(obj, obj->secs[p->btf].data, obj->secs[p->btf].size, vars,
				      nbtf);
		if (err)
			goto free_vars;
	}
	for (size_t i = 0; i < obj->nmaps; i++) {
		err = check_map_def(obj, &obj->maps[i]);
		if (err)
			goto free_vars;
	}

	/* Global data: a one-element array whose value is the section. */
	for (size_t i = 1; i < obj->nsecs; i++) {
		struct ld_sec *s = &obj->secs[i];
		struct userbpf_map *m = &obj->maps[obj->nmaps];

		if (s->kind != SEC_DATA || !s->size)
			continue;
		if (s->size > UINT32_MAX) {
			err = ld_err(obj, -E2BIG,
				     "section '%s': %zu bytes of global data is too "
				     "large for a map value",
				     s->name, s->size);
			goto free_vars;
		}
		m->name = s->name;
		m->sec = i;
		m->def.type = BPF_MAP_TYPE_ARRAY;
		m->def.key_size = sizeof(u32);
		m->def.value_size = s->size;
		m->def.max_entries = 1;
		m->init = s->data;
		m->global_data = true;
		/* keyless, the section's DATASEC as the value: libbpf's BTF for global data */
		if (p->btf)
			m->def.btf_value_type_id = ld_btf_datasec_id(
				obj, obj->secs[p->btf].data, obj->secs[p->btf].size, s->name);
		/* mmapable where a global variable lives, as libbpf makes them (a skeleton maps
		 * them) */
		if (p->btf && ld_btf_datasec_has_global(obj, obj->secs[p->btf].data,
							obj->secs[p->btf].size,
							m->def.btf_value_type_id))
			m->def.map_flags = BPF_F_MMAPABLE;
		if (!strncmp(s->name, ".rodata", 7)) {
			m->def.map_flags |= BPF_F_RDONLY_PROG;
			m->frozen = true;
		}
		m->fd = -1;
		s->map = obj->nmaps++;
	}
free_vars:
	free(vars);
	return err;
}

/* The map of a .maps / maps section defined at byte off, or -1. */
static int map_at(const struct userbpf_object *obj, size_t sec, u64 off)
{
	for (size_t i = 0; i < obj->nmaps; i++)
		if (obj->maps[i].sec == sec && obj->maps[i].sec_off == off)
			return i;
	return -1;
}

static int insn_at(const struct ld_sec *s, size_t i, struct bpf_insn *insn)
{
	memcpy(insn, s->data + i * BPF_INSN_SZ, sizeof(*insn));
	return 0;
}

static bool is_call(const struct bpf_insn *insn)
{
	return insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg == BPF_PSEUDO_CALL;
}

/* The index in obj->kcfg[] of extern name if the .BTF puts it in ".kconfig" (added on first
 * sight), -ENOENT if it does not, or another -errno with a message (a type libbpf does not take
 * there, as libbpf's check). */
static int kconfig_extern(struct userbpf_object *obj, const Elf64_Sym *sym, const char *name)
{
	const struct ld_sec *b = &obj->secs[obj->btf_sec];
	struct ld_kcfg k, *grown;
	int found;

	for (size_t i = 0; i < obj->nkcfg; i++)
		if (!strcmp(obj->kcfg[i].name, name))
			return (int)i;
	if (!obj->btf_sec || !b->data)
		return -ENOENT;
	memset(&k, 0, sizeof(k));
	found = ld_btf_kcfg(obj, b->data, b->size, name, &k);
	if (found <= 0)
		return found < 0 ? found : -ENOENT;
	if (k.type == KCFG_UNKNOWN || !k.sz)
		return ld_err(obj, -EOPNOTSUPP, "extern (kcfg) '%s': type is unsupported", name);
	grown = realloc(obj->kcfg, (obj->nkcfg + 1) * sizeof(*grown));
	if (!grown)
		return ld_err(obj, -ENOMEM, "out of memory for __kconfig externs");
	obj->kcfg = grown;
	k.name = name;
	k.is_weak = ELF64_ST_BIND(sym->st_info) == STB_WEAK;
	grown[obj->nkcfg] = k;
	return (int)obj->nkcfg++;
}

/* A typeless kernel symbol (`extern const void sym __ksym`), whose address the load looks up
 * (reloc.c).  0 (r set), 1 when name is not one, or -errno. */
static int typeless_ksym(struct userbpf_object *obj, const Elf64_Sym *sym, const char *name,
			 struct ld_reloc *r)
{
	const struct ld_sec *b = &obj->secs[obj->btf_sec];
	int typeless;

	if (!obj->btf_sec || !b->data)
		return 1;
	typeless = ld_btf_ksym_typeless(obj, b->data, b->size, name);
	if (typeless <= 0)
		return typeless < 0 ? typeless : 1;
	r->kind = RELO_KSYM_ADDR;
	r->name = name;
	r->weak = ELF64_ST_BIND(sym->st_info) == STB_WEAK;
	return 0;
}

/* A relocation against an undefined symbol: a __kconfig extern (kconfig.c), or an extern
 * kernel function (`extern ... __ksym`),
 * called (a kfunc call) or loaded (its address: `if (kfunc)`), found by name in the kernel's BTF
 * as libbpf finds it.  A weak one the kernel lacks resolves to id 0: the call must be dead code,
 * the address is NULL.  A typeless symbol is its address; a typed kernel variable its BTF id
 * (the verifier's to resolve). */
static int resolve_extern(struct userbpf_object *obj, const Elf64_Sym *sym, const char *name,
			  const struct bpf_insn *insn, struct ld_reloc *r)
{
	const struct ld_sec *s = &obj->secs[r->sec];
	const struct btf *vmlinux = btf_vmlinux();
	bool call = insn->code == (BPF_JMP | BPF_CALL);
	u32 id = vmlinux ? btf_find_func(vmlinux, name) : 0;

	if (!call && insn->code != (BPF_LD | BPF_IMM | BPF_DW))
		return ld_err(obj, -EINVAL,
			      "section '%s': insn %u refers to extern '%s' but is not a call or a "
			      "ld_imm64 (code 0x%02x)", s->name, r->insn, name, insn->code);
	if (!call && r->insn + 1 >= s->size / BPF_INSN_SZ)
		return ld_err(obj, -EBADMSG,
			      "section '%s': the ld_imm64 of extern '%s' at insn %u is cut by the end "
			      "of the section", s->name, name, r->insn);
	if (!call) {
		int k = kconfig_extern(obj, sym, name);

		if (k < 0 && k != -ENOENT)
			return k;
		if (k >= 0) {
			r->kind = RELO_KCONFIG;
			r->func = (u32)k;
			return 0;
		}
		k = typeless_ksym(obj, sym, name, r);
		if (k <= 0)
			return k;
		/* a typed kernel variable (`extern struct rq runqueues __ksym`): its BTF id,
		 * which the verifier resolves (libbpf's check that the types agree is not
		 * made) */
		k = vmlinux ? (int)btf_find_by_name_kind(vmlinux, name, BTF_KIND_VAR) : 0;
		if (k > 0) {
			r->kind = RELO_KSYM;
			r->func = (u32)k;
			return 0;
		}
	}
	if (!id && ELF64_ST_BIND(sym->st_info) != STB_WEAK)
		return ld_err(obj, -ENOENT,
			      "section '%s': insn %u refers to extern '%s', which is not a function "
			      "or variable of the kernel's BTF (/sys/kernel/btf/vmlinux); the only "
			      "externs userbpf supports are kernel functions and variables (__ksym), "
			      "typeless kernel symbols (extern const void ... __ksym) and __kconfig "
			      "variables", s->name, r->insn, name);
	r->kind = call ? RELO_KFUNC : RELO_KSYM;
	r->func = id;
	return 0;
}

/* Resolves one relocation entry of code section sec into *r. */
static int resolve_reloc(struct userbpf_object *obj, const struct parse *p, size_t idx,
			 const Elf64_Rel *rel, size_t sec, struct ld_reloc *r)
{
	const struct ld_sec *s = &obj->secs[sec];
	u32 type = ELF64_R_TYPE(rel->r_info), symi = ELF64_R_SYM(rel->r_info);
	const struct ld_sec *ts;
	struct bpf_insn insn;
	const char *name;
	Elf64_Sym sym;
	s64 target;
	int fi, mi;

	if (rel->r_offset % BPF_INSN_SZ || rel->r_offset >= s->size)
		return ld_err(obj, -EBADMSG,
			      "section '%s': relocation %zu at offset %llu is not an "
			      "instruction (the section has %zu bytes)",
			      s->name, idx, (unsigned long long)rel->r_offset, s->size);
	if (symi >= p->nsyms)
		return ld_err(obj, -EBADMSG, "section '%s': relocation %zu names symbol %u of %zu",
			      s->name, idx, symi, p->nsyms);
	read_sym(obj, p, symi, &sym);
	name = ELF64_ST_TYPE(sym.st_info) == STT_SECTION && sym.st_shndx < obj->nsecs
		   ? obj->secs[sym.st_shndx].name
		   : sym_name(obj, p, &sym);
	r->sec = sec;
	r->insn = rel->r_offset / BPF_INSN_SZ;
	insn_at(s, r->insn, &insn);

	if (type != R_BPF_64_64 && type != R_BPF_64_32)
		return ld_err(obj, -EOPNOTSUPP,
			      "section '%s': relocation %zu against '%s': "
			      "unsupported relocation type %u",
			      s->name, idx, name, type);
	if (sym.st_shndx == SHN_UNDEF)
		return resolve_extern(obj, &sym, name, &insn, r);
	if (sym.st_shndx >= obj->nsecs)
		return ld_err(obj, -EBADMSG,
			      "section '%s': relocation %zu against '%s': symbol "
			      "section index %u is not a section",
			      s->name, idx, name, sym.st_shndx);
	ts = &obj->secs[sym.st_shndx];

	if (is_call(&insn)) {
		if (ts->kind != SEC_CODE)
			return ld_err(obj, -EINVAL,
				      "section '%s': call at insn %u to '%s', which is "
				      "in non-code section '%s'",
				      s->name, r->insn, name, ts->name);
		/* clang encodes the callee as symbol + (imm + 1) instructions. */
		target = (s64)(sym.st_value / BPF_INSN_SZ) + insn.imm + 1;
		fi = target >= 0 && target <= UINT32_MAX
			 ? ld_func_at(obj, sym.st_shndx, (u32)target)
			 : -1;
		if (fi < 0)
			return ld_err(obj, -EBADMSG,
				      "section '%s': call at insn %u to insn %lld of "
				      "'%s', which is not the start of a function",
				      s->name, r->insn, (long long)target, ts->name);
		r->kind = RELO_CALL;
		r->func = fi;
		return 0;
	}
	if (insn.code != (BPF_LD | BPF_IMM | BPF_DW))
		return ld_err(obj, -EINVAL,
			      "section '%s': relocation %zu against '%s' at insn %u: "
			      "not a ld_imm64 or call instruction (code 0x%02x)",
			      s->name, idx, name, r->insn, insn.code);
	if (r->insn + 1 >= s->size / BPF_INSN_SZ)
		return ld_err(obj, -EBADMSG,
			      "section '%s': relocation %zu against '%s': the ld_imm64 at insn %u "
			      "is cut by the end of the section",
			      s->name, idx, name, r->insn);
	switch (ts->kind) {
	case SEC_MAPS_BTF:
	case SEC_MAPS_LEGACY:
		mi = map_at(obj, sym.st_shndx, sym.st_value + (u64)(s64)insn.imm);
		if (mi < 0)
			return ld_err(obj, -EINVAL,
				      "section '%s': relocation %zu at insn %u: '%s' "
				      "+ %d is not a map of section '%s'",
				      s->name, idx, r->insn, name, insn.imm, ts->name);
		r->kind = RELO_MAP;
		r->map = mi;
		return 0;
	case SEC_DATA:
		target = (s64)sym.st_value + insn.imm;
		if (target < 0 || (u64)target >= ts->size || ts->map < 0)
			return ld_err(obj, -EINVAL,
				      "section '%s': relocation %zu at insn %u: '%s' "
				      "+ %d is outside section '%s' (%zu bytes)",
				      s->name, idx, r->insn, name, insn.imm, ts->name, ts->size);
		r->kind = RELO_DATA;
		r->map = ts->map;
		r->off = (u32)target;
		return 0;
	case SEC_CODE:
		/* a callback (bpf_loop's, ...): the function at symbol + imm bytes (a section
		 * symbol's imm is the offset, a function symbol's 0), as libbpf reads it */
		target = (s64)sym.st_value + insn.imm;
		fi = target >= 0 && target % BPF_INSN_SZ == 0 && target / BPF_INSN_SZ <= UINT32_MAX
			 ? ld_func_at(obj, sym.st_shndx, (u32)(target / BPF_INSN_SZ))
			 : -1;
		if (fi < 0)
			return ld_err(obj, -EBADMSG,
				      "section '%s': relocation %zu at insn %u: '%s' + %d is not "
				      "the start of a function",
				      s->name, idx, r->insn, name, insn.imm);
		r->kind = RELO_FUNC;
		r->func = fi;
		return 0;
	default:
		return ld_err(obj, -EINVAL,
			      "section '%s': relocation %zu at insn %u: '%s' is in "
			      "section '%s', which is neither code, a map nor global data",
			      s->name, idx, r->insn, name, ts->name);
	}
}

#define R_BPF_64_ABS64 2 /* (not in every elf.h yet) */

/* The .maps map whose definition holds byte off of the section: the last one starting at or
 * before it; -1 if none. */
static int map_holding(const struct userbpf_object *obj, size_t sec, u64 off)
{
	int best = -1;

	for (size_t i = 0; i < obj->nmaps; i++)
		if (obj->maps[i].sec == sec && obj->maps[i].sec_off <= off &&
		    (best < 0 || obj->maps[i].sec_off > obj->maps[best].sec_off))
			best = (int)i;
	return best;
}

/* The program whose function starts at (sec, byte offset off), or -1 (a static subprogram is
 * not a program). */
static int prog_at(const struct userbpf_object *obj, u64 sec, u64 off)
{
	for (size_t i = 0; i < obj->nfuncs; i++) {
		const struct ld_func *f = &obj->funcs[i];

		if (f->sec == sec && (u64)f->off * sizeof(struct bpf_insn) == off)
			return f->prog;
	}
	return -1;
}

/* Step 3c: the initial values of maps of maps and program arrays, `.values = { [i] = &x }`:
 * clang leaves them as 8-byte absolute relocations in .rel.maps against the inner maps' (or
 * the programs' functions') symbols, at slot i of the outer definition's values array
 * (libbpf's convention). */
static int parse_map_relocs(struct userbpf_object *obj, const struct parse *p)
{
	for (size_t i = 1; i < obj->nsecs; i++) {
		const struct ld_sec *rs = &obj->secs[i];
		size_t msec;
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(obj->elf, i), &sh) || sh.sh_type != SHT_REL ||
		    sh.sh_info >= obj->nsecs || obj->secs[sh.sh_info].kind != SEC_MAPS_BTF)
			continue;
		msec = sh.sh_info;
		if (sh.sh_link != p->symtab || sh.sh_size % sizeof(Elf64_Rel))
			return ld_err(obj, -EBADMSG, "section '%s': malformed relocation section",
				      rs->name);
		for (size_t j = 0; j < rs->size / sizeof(Elf64_Rel); j++) {
			u32 symi, slot, t;
			struct userbpf_map *m;
			Elf64_Rel rel;
			Elf64_Sym sym;
			int mi, ti;
			u64 at;

			memcpy(&rel, rs->data + j * sizeof(rel), sizeof(rel));
			if (ELF64_R_TYPE(rel.r_info) == R_BPF_NONE)
				continue;
			symi = ELF64_R_SYM(rel.r_info);
			if (ELF64_R_TYPE(rel.r_info) != R_BPF_64_ABS64 || symi >= p->nsyms)
				return ld_err(obj, -EBADMSG,
					      "section '%s': relocation %zu: type %u against "
					      "symbol %u is not an inner map",
					      rs->name, j, (u32)ELF64_R_TYPE(rel.r_info), symi);
			read_sym(obj, p, symi, &sym);
			mi = map_holding(obj, msec, rel.r_offset);
			if (mi >= 0 && obj->maps[mi].def.prog_values)
				ti = prog_at(obj, sym.st_shndx, sym.st_value);
			else
				ti = sym.st_shndx == msec ? map_at(obj, msec, sym.st_value) : -1;
			if (mi < 0 || ti < 0)
				return ld_err(obj, -EINVAL,
					      "section '%s': relocation %zu at %llu against '%s': "
					      "not a map of maps' value set to a map, nor a "
					      "program array's set to a program",
					      rs->name, j, (unsigned long long)rel.r_offset,
					      sym_name(obj, p, &sym));
			m = &obj->maps[mi];
			at = rel.r_offset - m->sec_off;
			if ((!m->def.inner && !m->def.prog_values) || at < m->def.values_off ||
			    (at - m->def.values_off) % 8)
				return ld_err(obj, -EINVAL,
					      "section '.maps': map '%s': a map reference at "
					      "offset %llu is not one of its values",
					      m->name, (unsigned long long)at);
			slot = (u32)((at - m->def.values_off) / 8);
			if ((at - m->def.values_off) / 8 >= m->def.max_entries)
				return ld_err(obj, -EINVAL,
					      "section '.maps': map '%s': initial value %u beyond "
					      "max_entries %u",
					      m->name, slot, m->def.max_entries);
			if (!m->init_slots) {
				m->init_slots = calloc(m->def.max_entries, sizeof(*m->init_slots));
				if (!m->init_slots)
					return ld_err(obj, -ENOMEM, "out of memory");
			}
			t = (u32)ti + 1;
			m->init_slots[slot] = t;
		}
	}
	return 0;
}

/* Step 4: relocations, then calls resolved by the assembler. */
static int parse_relocs(struct userbpf_object *obj, const struct parse *p)
{
	size_t n = 0, ncode = 0;
	struct ld_reloc *r;
	int err;

	for (size_t i = 1; i < obj->nsecs; i++) {
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(obj->elf, i), &sh))
			continue;
		if (sh.sh_type == SHT_RELA && sh.sh_info < obj->nsecs &&
		    obj->secs[sh.sh_info].kind == SEC_CODE)
			return ld_err(obj, -EOPNOTSUPP,
				      "section '%s': RELA relocations are not "
				      "supported (clang emits REL)",
				      obj->secs[i].name);
		if (sh.sh_type == SHT_REL && sh.sh_info < obj->nsecs &&
		    obj->secs[sh.sh_info].kind == SEC_CODE)
			n += obj->secs[i].size / sizeof(Elf64_Rel);
		if (obj->secs[i].kind == SEC_CODE)
			ncode += obj->secs[i].size / BPF_INSN_SZ;
	}
	/* Room for every relocation plus one call per instruction: both bounded by the image. */
	obj->relocs = calloc(n + ncode ? n + ncode : 1, sizeof(*obj->relocs));
	if (!obj->relocs)
		return ld_err(obj, -ENOMEM, "out of memory for %zu relocations", n + ncode);

	for (size_t i = 1; i < obj->nsecs; i++) {
		const struct ld_sec *rs = &obj->secs[i];
		GElf_Shdr sh;

		if (!gelf_getshdr(elf_getscn(obj->elf, i), &sh) || sh.sh_type != SHT_REL ||
		    sh.sh_info >= obj->nsecs || obj->secs[sh.sh_info].kind != SEC_CODE)
			continue;
		if (sh.sh_link != p->symtab || sh.sh_size % sizeof(Elf64_Rel))
			return ld_err(obj, -EBADMSG, "section '%s': malformed relocation section",
				      rs->name);
		for (size_t j = 0; j < rs->size / sizeof(Elf64_Rel); j++) {
			Elf64_Rel rel;

			memcpy(&rel, rs->data + j * sizeof(rel), sizeof(rel));
			if (ELF64_R_TYPE(rel.r_info) == R_BPF_NONE)
				continue;
			r = &obj->relocs[obj->nrelocs];
			err = resolve_reloc(obj, p, j, &rel, sh.sh_info, r);
			if (err)
				return err;
			obj->nrelocs++;
		}
	}
	qsort(obj->relocs, obj->nrelocs, sizeof(*obj->relocs), cmp_reloc);
	for (size_t i = 1; i < obj->nrelocs; i++)
		if (!cmp_reloc(&obj->relocs[i - 1], &obj->relocs[i]))
			return ld_err(obj, -EBADMSG, "section '%s': two relocations at insn %u",
				      obj->secs[obj->relocs[i].sec].name, obj->relocs[i].insn);

	/* Calls within a section that the assembler resolved: callee at insn + imm + 1. */
	n = obj->nrelocs;
	for (size_t i = 1; i < obj->nsecs; i++) {
		const struct ld_sec *s = &obj->secs[i];

		if (s->kind != SEC_CODE)
			continue;
		for (u32 k = 0; k < s->size / BPF_INSN_SZ; k++) {
			struct ld_reloc key = {.sec = i, .insn = k};
			struct bpf_insn insn;
			s64 target;
			int fi;

			insn_at(s, k, &insn);
			if (!is_call(&insn) ||
			    bsearch(&key, obj->relocs, n, sizeof(*obj->relocs), cmp_reloc))
				continue;
			target = (s64)k + insn.imm + 1;
			fi = target >= 0 && target <= UINT32_MAX ? ld_func_at(obj, i, (u32)target)
								 : -1;
			if (fi < 0)
				return ld_err(obj, -EBADMSG,
					      "section '%s': call at insn %u to insn %lld of "
					      "'%s', which is not the start of a function",
					      s->name, k, (long long)target, s->name);
			r = &obj->relocs[obj->nrelocs++];
			r->sec = i;
			r->insn = k;
			r->kind = RELO_CALL;
			r->func = fi;
		}
	}
	qsort(obj->relocs, obj->nrelocs, sizeof(*obj->relocs), cmp_reloc);
	return 0;
}

int ld_elf_parse(struct userbpf_object *obj)
{
	struct parse p = {0};
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return ld_err(obj, -ENOEXEC, "libelf: %s", elf_errmsg(-1));
	obj->elf = elf_memory(obj->image, obj->image_size);
	if (!obj->elf)
		return ld_err(obj, -ENOEXEC, "not an ELF object: %s", elf_errmsg(-1));
	err = check_header(obj);
	if (err)
		return err;
	err = parse_sections(obj, &p);
	if (err)
		return err;
	err = parse_license_version(obj);
	if (err)
		return err;
	err = parse_funcs(obj, &p);
	if (err)
		return err;
	err = parse_maps(obj, &p);
	if (err)
		return err;
	err = parse_map_relocs(obj, &p);
	if (err)
		return err;
	err = parse_relocs(obj, &p);
	if (err)
		return err;
	return ld_kconfig_layout(obj);
}
