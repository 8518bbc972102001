/* Reuseport socket arrays (reuseport_array.c), as the socket maps see them: a socket is in
 * either (the kernel marks it through its sk_user_data, which one of them has). */
#ifndef USERBPF_MAP_REUSEPORT_ARRAY_H
#define USERBPF_MAP_REUSEPORT_ARRAY_H

#include "util.h"

/* Whether a slot of a reuseport array holds the socket of cookie. */
bool reuseport_array_holds(u64 cookie);

#endif
