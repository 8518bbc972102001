/* The kernel's read-only string kfuncs (kfuncs_string.c), called as helpers are. */
#ifndef USERBPF_EXEC_KFUNCS_STRING_H
#define USERBPF_EXEC_KFUNCS_STRING_H

#include "exec/helpers.h"

u64 bpf_strcmp_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5);
u64 bpf_strcasecmp_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5);
u64 bpf_strchr_kfunc(u64 s, u64 c, u64 a3, u64 a4, u64 a5);
u64 bpf_strchrnul_kfunc(u64 s, u64 c, u64 a3, u64 a4, u64 a5);
u64 bpf_strnchr_kfunc(u64 s, u64 count, u64 c, u64 a4, u64 a5);
u64 bpf_strrchr_kfunc(u64 s, u64 c, u64 a3, u64 a4, u64 a5);
u64 bpf_strlen_kfunc(u64 s, u64 a2, u64 a3, u64 a4, u64 a5);
u64 bpf_strnlen_kfunc(u64 s, u64 count, u64 a3, u64 a4, u64 a5);
u64 bpf_strspn_kfunc(u64 s, u64 accept, u64 a3, u64 a4, u64 a5);
u64 bpf_strcspn_kfunc(u64 s, u64 reject, u64 a3, u64 a4, u64 a5);
u64 bpf_strstr_kfunc(u64 s1, u64 s2, u64 a3, u64 a4, u64 a5);
u64 bpf_strnstr_kfunc(u64 s1, u64 s2, u64 len, u64 a4, u64 a5);

#endif
