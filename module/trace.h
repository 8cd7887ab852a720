/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - the callout tracepoints: /sys/kernel/tracing/events/callout/,
 * perf -e 'callout:*', trace-cmd, bpftrace tracepoint:callout:*.
 *
 * Each is a static key: disabled, a call site costs a NOP. Times are ns of
 * CLOCK_MONOTONIC; "cpu" is the CPU whose base holds the callout.
 * Documented in Documentation/callout.rst, "Tracepoints".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM callout

#if !defined(CALLOUT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CALLOUT_TRACE_H

#include <linux/tracepoint.h>

/* callout_set: @c is armed for @expires_ns (the tick boundary it fires at). */
TRACE_EVENT(callout_set,
	    TP_PROTO(const void *c, const void *func, unsigned int cpu,
		     u64 expires_ns, u64 now_ns),
	    TP_ARGS(c, func, cpu, expires_ns, now_ns),
	    TP_STRUCT__entry(__field(const void *, callout)
			     __field(const void *, func)
			     __field(unsigned int, cpu)
			     __field(u64, expires_ns)
			     __field(u64, timeout_ns)),
	    TP_fast_assign(__entry->callout = c;
			   __entry->func = func;
			   __entry->cpu = cpu;
			   __entry->expires_ns = expires_ns;
			   __entry->timeout_ns = expires_ns > now_ns ? expires_ns - now_ns : 0;),
	    TP_printk("callout=%p func=%ps cpu=%u expires_ns=%llu timeout_ns=%llu",
		      __entry->callout, __entry->func, __entry->cpu,
		      __entry->expires_ns, __entry->timeout_ns)
);

/* callout_unset: @c is cancelled; @pending says whether it was armed. */
TRACE_EVENT(callout_unset,
	    TP_PROTO(const void *c, const void *func, unsigned int cpu, bool pending),
	    TP_ARGS(c, func, cpu, pending),
	    TP_STRUCT__entry(__field(const void *, callout)
			     __field(const void *, func)
			     __field(unsigned int, cpu)
			     __field(bool, pending)),
	    TP_fast_assign(__entry->callout = c;
			   __entry->func = func;
			   __entry->cpu = cpu;
			   __entry->pending = pending;),
	    TP_printk("callout=%p func=%ps cpu=%u pending=%d",
		      __entry->callout, __entry->func, __entry->cpu,
		      __entry->pending)
);

/*
 * callout_expire: @func is about to run for @c, due at @expires_ns; the
 * lateness is the time from then to now, when func starts.
 */
TRACE_EVENT(callout_expire,
	    TP_PROTO(const void *c, const void *func, unsigned int cpu,
		     u64 expires_ns, u64 now_ns),
	    TP_ARGS(c, func, cpu, expires_ns, now_ns),
	    TP_STRUCT__entry(__field(const void *, callout)
			     __field(const void *, func)
			     __field(unsigned int, cpu)
			     __field(u64, expires_ns)
			     __field(u64, late_ns)),
	    TP_fast_assign(__entry->callout = c;
			   __entry->func = func;
			   __entry->cpu = cpu;
			   __entry->expires_ns = expires_ns;
			   __entry->late_ns = now_ns > expires_ns ? now_ns - expires_ns : 0;),
	    TP_printk("callout=%p func=%ps cpu=%u expires_ns=%llu late_ns=%llu",
		      __entry->callout, __entry->func, __entry->cpu,
		      __entry->expires_ns, __entry->late_ns)
);

/*
 * callout_tick: one run of a base's hrtimer, at its end: the wheel was
 * advanced to @tick, looking at @examined entries and moving @migrations
 * between levels (hierarchical) on the way; @expired funcs ran, and
 * @deferred says the per-run budget left some for the next run.
 */
TRACE_EVENT(callout_tick,
	    TP_PROTO(unsigned int cpu, u64 tick, u64 examined, u64 migrations,
		     unsigned int expired, bool deferred),
	    TP_ARGS(cpu, tick, examined, migrations, expired, deferred),
	    TP_STRUCT__entry(__field(unsigned int, cpu)
			     __field(u64, tick)
			     __field(u64, examined)
			     __field(u64, migrations)
			     __field(unsigned int, expired)
			     __field(bool, deferred)),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->tick = tick;
			   __entry->examined = examined;
			   __entry->migrations = migrations;
			   __entry->expired = expired;
			   __entry->deferred = deferred;),
	    TP_printk("cpu=%u tick=%llu examined=%llu migrations=%llu expired=%u deferred=%d",
		      __entry->cpu, __entry->tick, __entry->examined,
		      __entry->migrations, __entry->expired, __entry->deferred)
);

#endif /* CALLOUT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
