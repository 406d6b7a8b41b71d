// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli-errors.h"
#include "cli-escape.h"
#include "cli-msg.h"
#include "json-keys.h"
#include "modrot.h"
#include "reclaim-report.h"
#include "sizewords.h"

const char *instances_word(size_t n)
{
	return n == 1 ? "instance" : "instances";
}

void count_error_message(char *buf, size_t cap, const char *name, int err)
{
	char safe[4 * ROT_NAME_MAX + 8], why[256];
	snprintf(buf, cap, "%s: what the reclaim freed could not be counted: %s",
		 cli_safe(name, safe, sizeof(safe)), cli_read_error(err, why, sizeof(why)));
}

void report_reclaimed(const char *name, size_t instances, uint64_t bytes, bool dry_run)
{
	report_reclaimed_percpu(name, instances, bytes, 0, dry_run);
}

void report_reclaimed_percpu(const char *name, size_t instances, uint64_t bytes, uint64_t percpu,
			     bool dry_run)
{
	char safe[4 * ROT_NAME_MAX + 8], size[SIZE_WORDS_MAX];
	printf("%s: %s %zu %s, %s", cli_safe(name, safe, sizeof(safe)),
	       dry_run ? "would reclaim" : "reclaimed", instances, instances_word(instances),
	       size_words(bytes, "bytes", size));
	if (percpu)
		printf(", %s", size_words(percpu, "per-CPU bytes", size));
	putchar('\n');
}

const char *kept_word(unsigned bit_index)
{
	static const char *const words[] = { "pin", "task",   "timer",  "work",
					     "rcu", "kprobe", "running" };
	return bit_index < sizeof(words) / sizeof(words[0]) ? words[bit_index] : NULL;
}

/* appends ", " (after the first) and the formatted words to buf */
static void add_reason(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_reason(char *buf, size_t cap, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n && n + 2 < cap) {
		memcpy(buf + n, ", ", 3);
		n += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
}

/* "1 timer pointing into it", "3 callbacks pointing into it (timers, work items)" */
static void callbacks_words(char *buf, size_t cap, const struct rot_reclaim_result *k)
{
	static const struct {
		unsigned bit;
		const char *one, *many;
	} kinds[] = {
		{ ROT_KEPT_TIMER, "timer", "timers" },
		{ ROT_KEPT_WORK, "work item", "work items" },
		{ ROT_KEPT_RCU, "RCU callback", "RCU callbacks" },
	};
	unsigned nkinds = 0, only = 0;
	for (unsigned i = 0; i < 3; i++)
		if (k->why & kinds[i].bit) {
			nkinds++;
			only = i;
		}
	if (nkinds == 1) {
		snprintf(buf, cap, "%u %s pointing into it", k->callbacks,
			 k->callbacks == 1 ? kinds[only].one : kinds[only].many);
		return;
	}
	char list[128] = "";
	for (unsigned i = 0; i < 3; i++)
		if (k->why & kinds[i].bit)
			add_reason(list, sizeof(list), "%s", kinds[i].many);
	snprintf(buf, cap, "%u callbacks pointing into it (%s)", k->callbacks, list);
}

/* "3 pins, 1 task inside its code, 1 timer pointing into it" */
static void kept_reasons(char *buf, size_t cap, const struct rot_reclaim_result *k)
{
	buf[0] = '\0';
	if (k->why & ROT_KEPT_PIN)
		add_reason(buf, cap, "%u %s", k->pins, k->pins == 1 ? "pin" : JK_PINS);
	if (k->why & ROT_KEPT_TASK)
		add_reason(buf, cap, "%u %s inside its code", k->tasks,
			   k->tasks == 1 ? "task" : JK_TASKS);
	if (k->why & (ROT_KEPT_TIMER | ROT_KEPT_WORK | ROT_KEPT_RCU)) {
		char cb[160];
		callbacks_words(cb, sizeof(cb), k);
		add_reason(buf, cap, "%s", cb);
	}
	/* probes counts instances with a kprobe, not kprobes (rot-abi R4) */
	if ((k->why & ROT_KEPT_KPROBE) && k->kept > 1)
		add_reason(buf, cap, "kprobes on the code of %u", k->probes);
	else if (k->why & ROT_KEPT_KPROBE)
		add_reason(buf, cap, "kprobes on its code");
	/* R5: the kernel marks every instance a forced reclaim still kept when its wait ran out */
	if (k->why & ROT_KEPT_RUNNING)
		add_reason(buf, cap, "still in use when the forced reclaim's wait ran out");
	if (!buf[0])
		snprintf(buf, cap, "the kernel did not say why");
}

void refused_message(char *buf, size_t cap, const char *name, const struct rot_reclaim_result *o,
		     const char *force_cmd, bool forced)
{
	char safe[4 * ROT_NAME_MAX + 8];
	size_t refused = o->kept;
	const char *them = refused == 1 ? "it" : "them";
	cli_safe(name, safe, sizeof(safe));
	if (o->revision != 3) {
		snprintf(buf, cap,
			 "%s: %zu rotting %s still in use (an armed timer, queued work or a probe "
			 "points into %s); not reclaimed; '%s %s' frees %s anyway, at the risk of a crash",
			 safe, refused, instances_word(refused), them, force_cmd, safe, them);
		return;
	}
	char why[512];
	kept_reasons(why, sizeof(why), o);
	/* R5: forcing stops timers, work and RCU callbacks, nothing else */
	char hint[sizeof(safe) + 128] = "";
	if (!forced && (o->why & (ROT_KEPT_TIMER | ROT_KEPT_WORK | ROT_KEPT_RCU)))
		snprintf(hint, sizeof(hint), "; '%s %s' stops the timers and work left in %s",
			 force_cmd, safe, them);
	snprintf(buf, cap, "could not reclaim %s: %zu rotting %s kept: %s%s", safe, refused,
		 instances_word(refused), why, hint);
}

void report_json_kept(struct json_writer *w, const struct rot_reclaim_result *reply)
{
	json_u64(w, JK_KEPT_INSTANCES, reply->kept);
	json_open_array(w, JK_WHY);
	for (unsigned b = 0; kept_word(b); b++)
		if (reply->why & (1u << b))
			json_string(w, NULL, kept_word(b));
	json_close_array(w);
	json_u64(w, JK_PINS, reply->pins);
	json_u64(w, JK_TASKS, reply->tasks);
	json_u64(w, JK_CALLBACKS, reply->callbacks);
	json_u64(w, JK_PROBES, reply->probes);
}

void report_taint_change(unsigned long before, unsigned long after, bool predicted)
{
	char b[40], a[40];
	rot_taint_letters(before, b, sizeof(b));
	rot_taint_letters(after, a, sizeof(a));
	printf("kernel taint%s: %s -> %s (%lu)\n", predicted ? " would go" : "", b, a, after);
}

/* A malformed mask is the kernel's to fix: the run goes on, warned. A
 * mask that could not be read at all (no memory, an I/O error) leaves the
 * report wrong without it: an error the run counts. */
static int taint_unknown(int err, const char *when)
{
	char why[256];
	if (err == -EPROTO) {
		cli_warn("could not read the kernel taint%s: %s", when,
			 cli_read_error(err, why, sizeof(why)));
		return 0;
	}
	cli_error("could not read the kernel taint%s: %s", when,
		  cli_read_error(err, why, sizeof(why)));
	return err;
}

int run_taint_before(struct run_taint *t)
{
	int err = rot_taint_read(&t->before);
	t->before_known = err == 0;
	return t->before_known ? 0 : taint_unknown(err, "");
}

int run_taint_after(struct run_taint *t, bool dry_run, unsigned long predicted_bits)
{
	if (dry_run) {
		t->after_known = t->before_known;
		t->after = t->before | predicted_bits;
		return 0;
	}
	int err = rot_taint_read(&t->after);
	t->after_known = err == 0;
	return t->after_known ? 0 : taint_unknown(err, " after the run");
}

static void taint_members(struct json_writer *w, const char *name, const char *value_name,
			  bool known, unsigned long mask)
{
	char letters[72];
	if (!known) {
		json_null(w, name);
		json_null(w, value_name);
		return;
	}
	if (mask == 0)
		letters[0] = '\0';
	else
		rot_taint_letters(mask, letters, sizeof(letters));
	json_string(w, name, letters);
	json_u64(w, value_name, mask);
}

void report_json_summary_common(struct json_writer *w, bool dry_run, unsigned failures,
				const struct run_taint *t)
{
	json_bool(w, JK_DRY_RUN, dry_run);
	json_u64(w, JK_FAILURES, failures);
	taint_members(w, JK_TAINT_BEFORE, JK_TAINT_BEFORE_VALUE, t->before_known, t->before);
	taint_members(w, JK_TAINT_AFTER, JK_TAINT_AFTER_VALUE, t->after_known, t->after);
}
