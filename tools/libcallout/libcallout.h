/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcallout.h - a small C library over /dev/callout
 *
 * The calls of Costello and Varghese's callout facility for user programs:
 * setcallout()/resetcallout()/unsetcallout() by handle, and the old
 * timeout(func, arg, ticks)/untimeout(func, arg), whose func(arg) really
 * runs: callout_dispatch() reads the expiry events that the kernel queued on
 * the file and calls func(arg) for each timeout that fired.
 * callout_submit() carries out an array of those operations in one system
 * call (CALLOUT_IOC_SUBMIT), or a few for a long array.
 *
 * The library opens /dev/callout once per process (non-blocking, close on
 * exec) on first use; every callout it sets belongs to that file and dies
 * with it (callout_close(), or exit). An event loop polls callout_fd() for
 * POLLIN/EPOLLIN and calls callout_dispatch() when it is readable; a simple
 * program can call callout_wait() and callout_dispatch() in a loop instead.
 * The fd is the library's: read it only through callout_dispatch().
 *
 * Every call returns 0 (or a count) on success and a negative errno on
 * failure, and then also sets errno. Calls are thread-safe; func(arg) and
 * the event handler run in the thread that called callout_dispatch(),
 * without any library lock held, and may call any of these functions.
 *
 * Times are nanoseconds of CLOCK_MONOTONIC; timeout() counts in ticks of
 * callout_info.tick_ns (callout_getinfo()). See Documentation/libcallout.rst.
 */
#ifndef LIBCALLOUT_H
#define LIBCALLOUT_H

#include <linux/callout.h>
#include <linux/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * typedef callout_func_t - a function run by timeout()
 * @arg: the argument given to timeout()
 */
typedef void (*callout_func_t)(void *arg);

/**
 * typedef callout_handler_t - what callout_dispatch() calls for an event of
 * setcallout()
 * @ev:   the event as the kernel gave it (handle, cookie, times, overrun)
 * @data: the data given to callout_dispatch()
 */
typedef void (*callout_handler_t)(const struct callout_event *ev, void *data);

/**
 * callout_open() - open /dev/callout for this process, if not yet open
 *
 * Description: the other calls open it themselves; call it to learn early whether the
 * device is there.
 *
 * Return: the file descriptor (as callout_fd()), or -ENOENT if the module
 * is not loaded, or another negative errno of open(2).
 */
int callout_open(void);

/**
 * callout_close() - close the file: every pending callout is cancelled
 *
 * Callouts and events not yet dispatched are dropped. A later call opens a
 * new file.
 */
void callout_close(void);

/**
 * callout_fd() - the file descriptor to poll for events
 *
 * Description: it is readable (POLLIN) while events wait for callout_dispatch(). It is
 * non-blocking; do not read it yourself.
 *
 * Return: the file descriptor, or a negative errno as callout_open().
 */
int callout_fd(void);

/**
 * callout_getinfo() - the facility's geometry
 * @info: filled in: tick_ns, max_timeout_ns, max_per_file, scheme, nr_cpus
 *
 * Return: 0, or a negative errno.
 */
int callout_getinfo(struct callout_info *info);

/**
 * setcallout() - arm a callout
 * @timeout_ns: > 0: the first expiry is this far from now
 * @period_ns:  0 for a one-shot, else re-arm every @period_ns
 * @cookie:     returned in each of its events
 * @handle:     set to the callout's handle (non-zero, never reused by this
 *              file); may be NULL
 *
 * Each expiry is an event with @cookie, given to callout_dispatch()'s
 * handler. A one-shot's handle is forgotten once its event is queued.
 *
 * Return: 0; -EINVAL for a zero @timeout_ns or a bad @period_ns; -ERANGE
 * beyond max_timeout_ns; -ENOSPC when the file holds max_per_file callouts;
 * -ENOMEM.
 */
int setcallout(__u64 timeout_ns, __u64 period_ns, __u64 cookie,
	       __u64 *handle);

/**
 * resetcallout() - re-arm a pending callout with new times
 * @handle:     from setcallout()
 * @timeout_ns: > 0: the next expiry is this far from now
 * @period_ns:  0 for a one-shot, else the new period
 *
 * Return: 0; -ENOENT if @handle is not pending (it fired, was unset or
 * never was); the errors of setcallout() for the times.
 */
int resetcallout(__u64 handle, __u64 timeout_ns, __u64 period_ns);

/**
 * unsetcallout() - cancel a pending callout
 * @handle: from setcallout()
 *
 * A one-shot whose event is already queued is no longer pending: its event
 * is still dispatched, and this returns -ENOENT.
 *
 * Return: 0 if it was cancelled, -ENOENT if it was not pending.
 */
int unsetcallout(__u64 handle);

/**
 * callout_defer() - put a setcallout() back, without a system call
 * @handle:      from setcallout(), pending
 * @deadline_ns: CLOCK_MONOTONIC: the callout is due at the first tick
 *               at or after it, never earlier
 *
 * Stores the deadline in the file's due-time table (mmap of the file, which
 * the first call of callout_defer(), callout_defer_by() or
 * callout_cancel_lazy() maps; those after it make no system call). When
 * the callout comes due, the kernel reads its entry and, finding a later
 * tick, re-files it there instead of firing it; it reads the entry again
 * then. A deadline not later than the due time the kernel holds takes no
 * effect: deferral only ever puts a callout back. A deferral that meets the
 * expiry may be too late: the event then shows the due time it fired at
 * (expires_ns), before @deadline_ns. The tick is taken modulo 2^39 ticks:
 * a deadline 2^38 ticks or more after the due time is taken as an earlier
 * one (ignored), and one beyond max_timeout_ns from the expiry is refused
 * (the callout fires). setcallout() and resetcallout() write the entry, so
 * a store before them is lost. A periodic callout's next expiry moves to
 * the deadline and its period goes on from there. A handle that is no
 * longer pending, or is not this file's, is ignored by the kernel, even
 * once its slot has a new callout.
 *
 * Return: 0, or a negative errno of mapping the table (-ENODEV from a
 * callout.ko without one).
 */
int callout_defer(__u64 handle, __u64 deadline_ns);

/**
 * callout_deadline() - a deadline @delay_ns from now, without a system call
 * @delay_ns: from now
 *
 * Reads the kernel's clock page (mapped with the table by the first call
 * of this or the calls below; a load after that): the first tick that
 * begins after every moment until the kernel's next timekeeping update
 * (a jiffy: 4 ms at HZ=250), to which it adds @delay_ns in ticks, rounded
 * up. While the kernel's tick runs on time the deadline is at least
 * @delay_ns after the call (when it is late, as much earlier as it is
 * late), and at most @delay_ns plus a jiffy and two ticks after it.
 *
 * Return: the deadline, in ns of CLOCK_MONOTONIC (the start of a tick), or
 * 0 with errno set if the table cannot be mapped.
 */
__u64 callout_deadline(__u64 delay_ns);

/**
 * callout_defer_by() - callout_defer() to callout_deadline(@delay_ns)
 * @handle:   from setcallout(), pending
 * @delay_ns: from now, as callout_deadline() counts it
 *
 * A load, a multiply and a store: the cheapest way to push a callout back.
 *
 * Return: as callout_defer().
 */
int callout_defer_by(__u64 handle, __u64 delay_ns);

/**
 * callout_cancel_lazy() - cancel a setcallout() without a system call
 * @handle: from setcallout()
 *
 * Stores the cancel mark in its due-time entry: when it comes due, the
 * kernel ends it instead of firing it, and no event of it is dispatched
 * after that, as after unsetcallout(). Until then it stays pending: it
 * holds its slot and counts toward max_per_file until its due time has
 * passed and the file is next read or polled (callout_dispatch(),
 * callout_wait()). unsetcallout() or resetcallout() before that take
 * effect as usual (the latter writes the entry, undoing the mark).
 *
 * Return: as callout_defer().
 */
int callout_cancel_lazy(__u64 handle);

/**
 * timeout() - call func(arg) once, @ticks ticks from now
 * @func:  the function, run by callout_dispatch()
 * @arg:   its argument
 * @ticks: > 0, in ticks of callout_info.tick_ns
 *
 * The same (@func, @arg) may be pending up to 64 times; each runs once.
 *
 * Return: 0; -EINVAL for zero @ticks or a NULL @func; -ERANGE beyond
 * max_timeout_ns; -ENOSPC at max_per_file, or with 64 of this (@func, @arg)
 * pending; -ENOMEM.
 */
int timeout(callout_func_t func, void *arg, __u64 ticks);

/**
 * untimeout() - cancel one pending timeout(@func, @arg)
 * @func: as given to timeout()
 * @arg:  as given to timeout()
 *
 * After a 0 return, one timeout(@func, @arg) will not run, even if it had
 * already expired and its event was waiting in the file: the library then
 * drops that event when it is dispatched.
 *
 * Return: 0 if one was cancelled, -ENOENT if none was pending or waiting.
 */
int untimeout(callout_func_t func, void *arg);

/**
 * callout_submit() - carry out an array of operations in few system calls
 * @ops:  @nr operations (struct callout_op of include/uapi/linux/callout.h):
 *        CALLOUT_OP_SET, _UNSET, _RESET, _TIMEOUT or _UNTIMEOUT, each with
 *        the fields of its single call and every other field 0; a
 *        TIMEOUT's func is its cookie field ((uintptr_t)func), its arg the
 *        arg field and its ticks the timeout field
 * @nr:   how many, any number: the kernel takes CALLOUT_SUBMIT_MAX a call,
 *        so the library makes as many calls as it needs
 * @done: set to how many were carried out, ops[0 .. *@done - 1]; may be
 *        NULL
 *
 * The operations are carried out in array order, each as its single call
 * (setcallout(), unsetcallout(), resetcallout(), timeout(), untimeout())
 * would be, and each gets in its result field 0 or the negative errno that
 * call would return; a SET gets its handle in the handle field (0 if it
 * failed). One that fails does not stop the ones after it; one with an
 * unknown op, non-zero flags or a non-zero field it does not read gets
 * -EINVAL and is not carried out. TIMEOUT and UNTIMEOUT are counted as
 * timeout() and untimeout() count them: an UNTIMEOUT of a timeout that
 * fired but whose event is not dispatched yet gets 0, and its func(arg)
 * does not run; a TIMEOUT of a NULL func gets -EINVAL from the library.
 * The times of SET, RESET and TIMEOUT count from one clock read per kernel
 * call (a TIMEOUT of a NULL func, answered by the library, ends one too).
 * The library reads the operations of each kernel call before it, to
 * count the timeouts: an op it cannot read is a crash, not -EFAULT.
 *
 * Return: 0 if all @nr were carried out (*@done = @nr), whatever their
 * results. Otherwise a negative errno; ops[*@done] and those after it were
 * not carried out, and got no result (that of ops[*@done] may be 0 if the
 * kernel could write it but not the rest): -EFAULT when the kernel could
 * not write an op's result or handle (it stops at or before that op);
 * -ENOMEM when the library could not count a TIMEOUT; -ENOTTY from a
 * callout.ko without CALLOUT_IOC_SUBMIT; the errors of callout_open().
 */
int callout_submit(struct callout_op *ops, unsigned int nr,
		   unsigned int *done);

/**
 * callout_dispatch() - handle the events that are waiting, without blocking
 * @handler: called for each event of setcallout(); NULL drops them
 * @data:    passed to @handler
 *
 * Reads what the file holds now, in batches, and for each event calls
 * func(arg) (a timeout()) or @handler (a setcallout()). Events that arrive
 * while it runs may be left for the next call, which keeps an event loop
 * fair; the fd stays readable while any are left.
 *
 * Return: the number of events handled (func or handler called), or a
 * negative errno if the first read failed.
 */
int callout_dispatch(callout_handler_t handler, void *data);

/**
 * callout_wait() - wait until events are waiting
 * @timeout_ms: as poll(2): -1 waits for ever, 0 does not wait
 *
 * Return: 1 if callout_dispatch() has events to handle, 0 on timeout, or a
 * negative errno (-EINTR on a signal).
 */
int callout_wait(int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* LIBCALLOUT_H */
