/* The LRU lists of the LRU hash maps (lru.h): the kernel's policy, step for step, on intrusive
 * circular lists of node indices.  A list's head is a node of its own, after the elements'. */
#include <errno.h>
#include <stdlib.h>

#include "map/lru.h"
#include "map/map.h"

enum lru_type { L_ACTIVE, L_INACTIVE, L_FREE, L_LOCAL_FREE, L_LOCAL_PENDING };

#define LOCAL_FREE_TARGET 128u	/* common LRU: the largest batch, and the most nodes scanned */
#define PERCPU_FREE_TARGET 4u	/* BPF_F_NO_COMMON_LRU: both */

struct lru_node {
	u32 prev, next;
	u16 cpu;	/* common: the CPU whose pending list it was put on; percpu: its CPU */
	u8 type;	/* enum lru_type */
};

struct lru_list {
	u32 head[3];	/* L_ACTIVE, L_INACTIVE, L_FREE */
	u32 count[2];	/* active, inactive */
	u32 next_rot;	/* where the next inactive rotation starts (a node or the head) */
};

struct lru_local {
	u32 head[2];	/* L_LOCAL_FREE, L_LOCAL_PENDING */
	u32 next_steal;	/* the CPU to steal from first */
};

/* ---- lists of indices ---- */

static void list_init(struct lru *l, u32 h)
{
	l->nodes[h].prev = l->nodes[h].next = h;
}

static bool list_empty(const struct lru *l, u32 h)
{
	return l->nodes[h].next == h;
}

static void list_del(struct lru *l, u32 x)
{
	struct lru_node *n = l->nodes;

	n[n[x].prev].next = n[x].next;
	n[n[x].next].prev = n[x].prev;
}

/* At the front of list h. */
static void list_add(struct lru *l, u32 x, u32 h)
{
	struct lru_node *n = l->nodes;

	n[x].prev = h;
	n[x].next = n[h].next;
	n[n[h].next].prev = x;
	n[h].next = x;
}

static void list_move(struct lru *l, u32 x, u32 h)
{
	list_del(l, x);
	list_add(l, x, h);
}

/* ---- the referenced mark ---- */

static bool is_ref(const struct lru *l, u32 x)
{
	return __atomic_load_n(&l->ref_base[x * l->ref_stride], __ATOMIC_RELAXED);
}

static void clear_ref(struct lru *l, u32 x)
{
	__atomic_store_n(&l->ref_base[x * l->ref_stride], 0, __ATOMIC_RELAXED);
}

/* ---- moves (the kernel's __bpf_lru_node_move*()) ---- */

static void count_add(struct lru_list *g, u8 type, int d)
{
	if (type < L_FREE)
		g->count[type] += (u32)d;
}

/* From the active or inactive list onto a free list. */
static void move_to_free(struct lru *l, struct lru_list *g, u32 x, u32 free_head, u8 type)
{
	if (g->next_rot == x)
		g->next_rot = l->nodes[x].prev;
	count_add(g, l->nodes[x].type, -1);
	l->nodes[x].type = type;
	list_move(l, x, free_head);
}

/* From a CPU's pending list into the global lists. */
static void move_in(struct lru *l, struct lru_list *g, u32 x, u8 type)
{
	count_add(g, type, 1);
	l->nodes[x].type = type;
	clear_ref(l, x);
	list_move(l, x, g->head[type]);
}

/* Between or within the global lists (to the front). */
static void move(struct lru *l, struct lru_list *g, u32 x, u8 type)
{
	if (l->nodes[x].type != type) {
		count_add(g, l->nodes[x].type, -1);
		count_add(g, type, 1);
		l->nodes[x].type = type;
	}
	clear_ref(l, x);
	if (g->next_rot == x)
		g->next_rot = l->nodes[x].prev;
	list_move(l, x, g->head[type]);
}

/* ---- rotation and shrinking ---- */

/* From the active list's tail, at most nr_scans nodes: a referenced one goes back to the front,
 * another to the inactive list.  Stops at the node that was first. */
static void rotate_active(struct lru *l, struct lru_list *g)
{
	u32 h = g->head[L_ACTIVE], first = l->nodes[h].next, i = 0;

	for (u32 x = l->nodes[h].prev, prev; x != h; x = prev) {
		prev = l->nodes[x].prev;
		move(l, g, x, is_ref(l, x) ? L_ACTIVE : L_INACTIVE);
		if (++i == l->nr_scans || x == first)
			break;
	}
}

/* From next_rot towards the front, wrapping past the head, at most nr_scans nodes, up to the
 * node after where it began: referenced nodes go to the active list, the others stay. */
static void rotate_inactive(struct lru *l, struct lru_list *g)
{
	u32 h = g->head[L_INACTIVE], cur, last, next = h, i = 0;

	if (list_empty(l, h))
		return;
	last = l->nodes[g->next_rot].next;
	if (last == h)
		last = l->nodes[last].next;
	cur = g->next_rot;
	while (i < l->nr_scans) {
		if (cur == h) {
			cur = l->nodes[cur].prev;
			continue;
		}
		next = l->nodes[cur].prev;
		if (is_ref(l, cur))
			move(l, g, cur, L_ACTIVE);
		if (cur == last)
			break;
		cur = next;
		i++;
	}
	g->next_rot = next;
}

static void rotate(struct lru *l, struct lru_list *g)
{
	if (g->count[L_INACTIVE] < g->count[L_ACTIVE])
		rotate_active(l, g);
	rotate_inactive(l, g);
}

/* From the inactive list's tail, at most nr_scans nodes: referenced ones go to the active list,
 * the others are evicted onto free_head, until want are.  How many were. */
static u32 shrink_inactive(struct lru *l, struct lru_list *g, u32 want, u32 free_head, u8 type)
{
	u32 h = g->head[L_INACTIVE], got = 0, i = 0;

	for (u32 x = l->nodes[h].prev, prev; x != h; x = prev) {
		prev = l->nodes[x].prev;
		if (is_ref(l, x)) {
			move(l, g, x, L_ACTIVE);
		} else if (l->evict(l->arg, x)) {
			move_to_free(l, g, x, free_head, type);
			if (++got == want)
				break;
		}
		if (++i == l->nr_scans)
			break;
	}
	return got;
}

/* shrink_inactive(), and if that freed nothing, the first node that can be evicted from the
 * tail of the inactive list (the active one if that is empty), referenced or not. */
static u32 shrink(struct lru *l, struct lru_list *g, u32 want, u32 free_head, u8 type)
{
	u32 got = shrink_inactive(l, g, want, free_head, type), h;

	if (got)
		return got;
	h = g->head[list_empty(l, g->head[L_INACTIVE]) ? L_ACTIVE : L_INACTIVE];
	for (u32 x = l->nodes[h].prev, prev; x != h; x = prev) {
		prev = l->nodes[x].prev;
		if (l->evict(l->arg, x)) {
			move_to_free(l, g, x, free_head, type);
			return 1;
		}
	}
	return 0;
}

/* ---- common LRU ---- */

/* The CPU's pending nodes into the global lists, then a batch of free ones to its free list. */
static void refill_local(struct lru *l, struct lru_local *loc)
{
	struct lru_list *g = &l->lists[0];
	u32 got = 0, h = g->head[L_FREE];

	for (u32 x = l->nodes[loc->head[1]].prev, prev; x != loc->head[1]; x = prev) {
		prev = l->nodes[x].prev;
		move_in(l, g, x, is_ref(l, x) ? L_ACTIVE : L_INACTIVE);
	}
	rotate(l, g);
	for (u32 x = l->nodes[h].next, next; x != h; x = next) {
		next = l->nodes[x].next;
		move_to_free(l, g, x, loc->head[0], L_LOCAL_FREE);
		if (++got == l->target_free)
			break;
	}
	if (got < l->target_free)
		shrink(l, g, l->target_free - got, loc->head[0], L_LOCAL_FREE);
}

static s64 local_pop_free(struct lru *l, struct lru_local *loc)
{
	u32 x = l->nodes[loc->head[0]].next;

	if (x == loc->head[0])
		return -1;
	list_del(l, x);
	return x;
}

/* The oldest pending node that can be evicted, unreferenced ones first. */
static s64 local_pop_pending(struct lru *l, struct lru_local *loc)
{
	u32 h = loc->head[1];

	for (int force = 0; force < 2; force++)
		for (u32 x = l->nodes[h].prev; x != h; x = l->nodes[x].prev)
			if ((force || !is_ref(l, x)) && l->evict(l->arg, x)) {
				list_del(l, x);
				return x;
			}
	return -1;
}

static void add_pending(struct lru *l, struct lru_local *loc, u32 cpu, u32 x)
{
	l->nodes[x].cpu = (u16)cpu;
	l->nodes[x].type = L_LOCAL_PENDING;
	clear_ref(l, x);
	list_add(l, x, loc->head[1]);
}

static s64 common_pop_free(struct lru *l, u32 cpu)
{
	struct lru_local *loc = &l->locals[cpu];
	s64 x = local_pop_free(l, loc);
	u32 steal, first;

	if (x < 0) {
		refill_local(l, loc);
		x = local_pop_free(l, loc);
	}
	if (x >= 0) {
		add_pending(l, loc, cpu, (u32)x);
		return x;
	}
	/* nothing free anywhere global: steal a free or pending node, CPU by CPU */
	first = steal = loc->next_steal;
	do {
		struct lru_local *other = &l->locals[steal];

		x = local_pop_free(l, other);
		if (x < 0)
			x = local_pop_pending(l, other);
		steal = (steal + 1) % l->ncpus;
	} while (x < 0 && steal != first);
	loc->next_steal = steal;
	if (x >= 0)
		add_pending(l, loc, cpu, (u32)x);
	return x;
}

/* ---- BPF_F_NO_COMMON_LRU ---- */

static s64 percpu_pop_free(struct lru *l, u32 cpu)
{
	struct lru_list *g = &l->lists[cpu];
	u32 h = g->head[L_FREE], x;

	rotate(l, g);
	if (list_empty(l, h))
		shrink(l, g, PERCPU_FREE_TARGET, h, L_FREE);
	if (list_empty(l, h))
		return -1;
	x = l->nodes[h].next;
	clear_ref(l, x);
	move(l, g, x, is_ref(l, x) ? L_ACTIVE : L_INACTIVE);
	return x;
}

/* ---- the interface ---- */

s64 lru_pop_free(struct lru *l)
{
	u32 cpu = map_this_cpu() % l->ncpus;
	s64 x;

	spin_lock(&l->lock);
	x = l->percpu ? percpu_pop_free(l, cpu) : common_pop_free(l, cpu);
	spin_unlock(&l->lock);
	return x;
}

void lru_push_free(struct lru *l, u32 x)
{
	struct lru_node *n = &l->nodes[x];

	spin_lock(&l->lock);
	if (l->percpu) {
		move(l, &l->lists[n->cpu], x, L_FREE);
	} else if (n->type == L_LOCAL_PENDING) {
		/* back to the free list of the CPU that took it */
		n->type = L_LOCAL_FREE;
		clear_ref(l, x);
		list_move(l, x, l->locals[n->cpu].head[0]);
	} else if (n->type != L_FREE && n->type != L_LOCAL_FREE) {
		move(l, &l->lists[0], x, L_FREE);
	}
	spin_unlock(&l->lock);
}

int lru_init(struct lru *l, u32 n, u32 ncpus, bool percpu, u8 *ref_base, size_t ref_stride,
	     lru_evict_fn evict, void *arg)
{
	u32 nlists = percpu ? ncpus : 1, heads = 3 * nlists + (percpu ? 0 : 2 * ncpus);
	u32 h = n;

	*l = (struct lru){ .n = n, .ncpus = ncpus, .percpu = percpu, .ref_base = ref_base,
			   .ref_stride = ref_stride, .evict = evict, .arg = arg };
	l->nodes = calloc((size_t)n + heads, sizeof(*l->nodes));
	l->lists = calloc(nlists, sizeof(*l->lists));
	l->locals = percpu ? NULL : calloc(ncpus, sizeof(*l->locals));
	if (!l->nodes || !l->lists || (!percpu && !l->locals)) {
		lru_destroy(l);
		return -ENOMEM;
	}
	for (u32 c = 0; c < nlists; c++) {
		struct lru_list *g = &l->lists[c];

		for (int t = 0; t < 3; t++) {
			g->head[t] = h;
			list_init(l, h++);
		}
		g->next_rot = g->head[L_INACTIVE];
	}
	for (u32 c = 0; !percpu && c < ncpus; c++) {
		struct lru_local *loc = &l->locals[c];

		for (int t = 0; t < 2; t++) {
			loc->head[t] = h;
			list_init(l, h++);
		}
		loc->next_steal = c;
	}
	if (percpu) {
		/* CPU c gets elements [c * per, (c + 1) * per), the last CPU the rest */
		u32 per = n / ncpus ? n / ncpus : 1;

		l->nr_scans = PERCPU_FREE_TARGET;
		for (u32 i = 0; i < n; i++) {
			u32 c = i / per < ncpus ? i / per : ncpus - 1;

			l->nodes[i].cpu = (u16)c;
			l->nodes[i].type = L_FREE;
			list_add(l, i, l->lists[c].head[L_FREE]);
		}
	} else {
		u32 target = n / ncpus / 2;

		l->nr_scans = LOCAL_FREE_TARGET;
		l->target_free = target < 1 ? 1 : target > LOCAL_FREE_TARGET ? LOCAL_FREE_TARGET : target;
		for (u32 i = 0; i < n; i++) {
			l->nodes[i].type = L_FREE;
			list_add(l, i, l->lists[0].head[L_FREE]);
		}
	}
	return 0;
}

void lru_destroy(struct lru *l)
{
	free(l->nodes);
	free(l->lists);
	free(l->locals);
	l->nodes = NULL;
	l->lists = NULL;
	l->locals = NULL;
}
