/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every key the tools write in their -J output, in one place: a print
 * function names a key only through these. modrot(7), section JSON
 * VOCABULARY, documents each one (type, unit, tools), and tests/json.bats
 * holds this file, the man page and the tools' output to each other.
 *
 * One quantity, one name: a count or a size that belongs to a state or an
 * action carries it as a prefix (rotting_, reclaimed_, unloaded_, rotted_,
 * kept_), and every size in bytes ends in "bytes". A summary member that
 * has a record's name is the sum of that member over the records.
 *
 * One key per line, "#define JK_... "key"": the test reads the keys from
 * this file by that shape.
 */
#ifndef MODROT_JSON_KEYS_H
#define MODROT_JSON_KEYS_H

/* Arrays and objects of a document */
#define JK_MODULES "modules"
#define JK_ROTTING "rotting"
#define JK_RECLAIMED "reclaimed"
#define JK_SUMMARY "summary"
#define JK_KEPT "kept"
#define JK_PASS "pass"

/* What a record is about */
#define JK_NAME "name"
#define JK_FILENAME "filename"

/* A record's outcome */
#define JK_RESULT "result"
#define JK_REASON "reason"
#define JK_ERRNO "errno"
#define JK_ERROR "error"
#define JK_MESSAGE "message"

/* lsmod: one module or rotting instance */
#define JK_BYTES "bytes"
#define JK_PERCPU_BYTES "percpu_bytes"
#define JK_REFCNT "refcnt"
#define JK_HOLDERS "holders"
#define JK_STATE "state"
#define JK_ADDRESS "address"
#define JK_TAINTS "taints"
#define JK_PERMANENT "permanent"
#define JK_DEVICES "devices"
#define JK_MOUNTS "mounts"
#define JK_INUSE "inuse"
#define JK_PINS "pins"

/* What rots, by name (modreap, modinfo) */
#define JK_ROTTING_NAMES "rotting_names"
#define JK_ROTTING_INSTANCES "rotting_instances"
#define JK_ROTTING_BYTES "rotting_bytes"
#define JK_ROTTING_PERCPU_BYTES "rotting_percpu_bytes"

/* What an action did (rmmod, modreap, insmod) */
#define JK_UNLOADED "unloaded"
#define JK_UNLOADED_BYTES "unloaded_bytes"
#define JK_RECLAIMED_NAMES "reclaimed_names"
#define JK_RECLAIMED_INSTANCES "reclaimed_instances"
#define JK_RECLAIMED_BYTES "reclaimed_bytes"
#define JK_RECLAIMED_PERCPU_BYTES "reclaimed_percpu_bytes"
#define JK_ROTTED "rotted"
#define JK_ROTTED_BYTES "rotted_bytes"

/* What a reclaim kept, and why (rmmod, modreap) */
#define JK_KEPT_INSTANCES "kept_instances"
#define JK_WHY "why"
#define JK_TASKS "tasks"
#define JK_CALLBACKS "callbacks"
#define JK_PROBES "probes"
#define JK_REFS "refs"
#define JK_WHERE "where"

/* The per-CPU module reserve (modreap, insmod) */
#define JK_PERCPU_RESERVE_BYTES "percpu_reserve_bytes"
#define JK_PERCPU_FREE_BYTES "percpu_free_bytes"
#define JK_PERCPU_LARGEST_BYTES "percpu_largest_bytes"
#define JK_PERCPU_SHORT "percpu_short"

/* Every summary */
#define JK_DRY_RUN "dry_run"
#define JK_FAILURES "failures"
#define JK_TAINT_BEFORE "taint_before"
#define JK_TAINT_BEFORE_VALUE "taint_before_value"
#define JK_TAINT_AFTER "taint_after"
#define JK_TAINT_AFTER_VALUE "taint_after_value"

/* insmod's summary: its records by result */
#define JK_FILES "files"
#define JK_LOADED "loaded"
#define JK_OK "ok"
#define JK_REFUSED "refused"
#define JK_REFUSED_PERCPU "refused_percpu"
#define JK_FAILED "failed"
#define JK_FAILED_PERCPU "failed_percpu"
#define JK_SKIPPED "skipped"
#define JK_UNMATCHED "unmatched"
#define JK_PRESENT "present"
#define JK_NOT_STARTED "not_started"
#define JK_INTERRUPTED "interrupted"

/* modinfo */
#define JK_ROT "rot"
#define JK_ARGUMENT "argument"
#define JK_BUILTIN "builtin"
#define JK_INFO "info"
#define JK_KEY "key"
#define JK_VALUE "value"
#define JK_PARAMETERS "parameters"
#define JK_DESCRIPTION "description"
#define JK_TYPE "type"
#define JK_VERIFY "verify"
#define JK_VALID "valid"
#define JK_STATUS "status"
#define JK_SIGNER "signer"
#define JK_KEY_ID "key_id"

#endif
