/* bpf_timer.h — timers in map values: the bpf_timer_*() helpers and the map side of them; and
 * work items (struct bpf_wq, the bpf_wq_*() kfuncs) and task work (struct bpf_task_work, the
 * bpf_task_work_schedule_*() kfuncs), which are kept as timers are.
 *
 * A map whose value struct has a struct bpf_timer member (map->timer_off, found in its BTF)
 * holds one timer per element.  A program initialises it (bpf_timer_init), gives it a callback,
 * a static function of the same program (bpf_timer_set_callback), and arms it
 * (bpf_timer_start); when it expires, the callback runs with the map, the element's key and its
 * value.  The element's timer goes (cancelled, its program reference dropped) when the element
 * is updated, deleted or evicted, and every timer of the map when its last fd or pin goes.
 */
#ifndef USERBPF_EXEC_BPF_TIMER_H
#define USERBPF_EXEC_BPF_TIMER_H

#include "util.h"

struct bpf_map;

/* Helpers (their prototypes: helpers.c). */
u64 bpf_timer_init_helper(u64 timer, u64 map, u64 flags, u64 a4, u64 a5);
u64 bpf_timer_set_callback_helper(u64 timer, u64 callback, u64 a3, u64 a4, u64 a5);
u64 bpf_timer_start_helper(u64 timer, u64 nsecs, u64 flags, u64 a4, u64 a5);
u64 bpf_timer_cancel_helper(u64 timer, u64 a2, u64 a3, u64 a4, u64 a5);
/* The work items' kfuncs (a struct bpf_wq in a map value: map->wq_off). */
u64 bpf_wq_init_kfunc(u64 wq, u64 map, u64 flags, u64 a4, u64 a5);
u64 bpf_wq_set_callback_kfunc(u64 wq, u64 callback, u64 flags, u64 aux, u64 a5);
u64 bpf_wq_start_kfunc(u64 wq, u64 flags, u64 a3, u64 a4, u64 a5);
/* Task work's kfuncs, both modes (a struct bpf_task_work in a map value: map->task_work_off). */
u64 bpf_task_work_schedule_kfunc(u64 task, u64 tw, u64 map, u64 callback, u64 aux);
/* Runs the task work scheduled for the calling thread, if any: called as bpf() returns (the
 * kernel runs a task's work as it returns to user space).  One relaxed load when there is
 * none. */
void task_work_run_current(void);

/* A map with timers: its last user reference (fd or pin) frees them all. */
void bpf_timer_map_init(struct bpf_map *map);
/* Cancels and frees the timer of value (an element leaving the map, or updated): lock-free
 * when it has none.  Safe inside a read section and under a bucket lock. */
void bpf_timer_free(struct bpf_map *map, void *value);
/* Waits until no callback of a timer this thread freed is running (the kernel's
 * bpf_timer_cancel_and_free() waits so too): called when the map operation that freed it holds
 * no lock any more (the end of a bpf() command, of a map helper), so that once the operation has
 * returned, an element's old callback does not act on it, nor on a timer made there since.
 * Nothing to do (one thread-local load) in the usual case. */
void bpf_timer_sync(void);

/* Before the map's memory goes: frees the timers left (ops->free_timers) and waits for a
 * callback still running on one of its values. */
void bpf_timer_map_free(struct bpf_map *map);

#endif /* USERBPF_EXEC_BPF_TIMER_H */
