/*
 * lodwash's cleaning library: reads any RDF file (rdf_readers), checks and
 * repairs its statements, skolemizes blank nodes and writes canonical N-Quads,
 * sorted and without duplicates by an external merge sort whose memory is
 * bounded. The parse stage and `lodwash clean` both run it.
 *
 * Uses base, files, rdf and rdf_readers. Below, one section per module; its code
 * is clean/<module>.c.
 */
#ifndef LW_CLEAN_H
#define LW_CLEAN_H

#include "base/base.h"
#include "rdf/rdf.h"

/* ---- nq_sort (clean/nq_sort.c) ----------------------------------------- */

/*
 * External merge sort with duplicate removal for newline-terminated lines
 * (canonical N-Quads), in bounded memory whatever the input size.
 *
 * Lines are added one by one and copied into one arena of `memory_budget`
 * bytes: line bytes grow from its front, a small index entry per line
 * (16 bytes) from its back, so the budget counts bytes, not lines. When the
 * arena is full the lines are sorted (a multikey quicksort on 7-byte cached
 * key slices, bytewise like memcmp and LC_ALL=C sort), duplicates dropped,
 * and written as one sorted run to DATA/tmp (files/files.h). At the
 * end the runs are merged with a heap (several passes when there are more
 * runs than the budget has read buffers for), dropping duplicates across
 * runs, and each line goes to a callback; the lines still in the arena are
 * merged from there, the runs read through the arena's free space, when it
 * has room for their buffers. Input that fits the budget never touches the
 * disk. Runs are removed by lw_sorter_free, on success and on
 * error alike.
 *
 * Memory: the arena (the budget) while adding; read buffers sized to share
 * the budget while merging; plus a few KiB. A single line longer than the
 * arena can hold becomes a run of its own (its copy is the one exception to
 * the budget).
 */
#include <stddef.h>

typedef struct LwSorter LwSorter;

typedef struct {
  const char *data_dir; /* runs go to DATA/tmp; NULL: $TMPDIR or /tmp */
  size_t memory_budget; /* bytes; 0: 256 MiB; smaller than 64 KiB: 64 KiB */
} LwSortOptions;

typedef struct {
  unsigned long long lines_in;   /* lines added */
  unsigned long long lines_out;  /* distinct lines handed to the sink */
  unsigned long long duplicates; /* lines_in - lines_out once finished */
  unsigned long long bytes_out;  /* bytes handed to the sink */
  unsigned runs;                 /* sorted runs written to disk */
  unsigned merge_passes;         /* 0: all in memory; 1: one merge; more */
} LwSortStats;

/* Receives one line including its final '\n'; the bytes are valid only
 * during the call. Returning an error (> LW_NOTHING) stops the sorter. */
typedef LwStatus (*LwLineSink)(void *handle, const char *line, size_t len);

/* A new sorter, or NULL when out of memory. The options are copied.
 * Free it with lw_sorter_free. */
LwSorter *lw_sorter_new(const LwSortOptions *options);

/* Adds one line: len bytes, the last of which must be '\n' (a line without
 * one gets it added). The bytes are copied. Errors: LW_ERR_IO when a run
 * cannot be written, LW_ERR_NOMEM. */
LwStatus lw_sorter_add(LwSorter *sorter, const char *line, size_t len, LwError *err);

/* Sorts, merges and hands every distinct line to sink in bytewise order.
 * Call it once; afterwards only lw_sorter_stats and lw_sorter_free. */
LwStatus lw_sorter_finish(LwSorter *sorter, LwLineSink sink, void *handle, LwError *err);

/* Counts so far (complete after lw_sorter_finish). */
LwSortStats lw_sorter_stats(const LwSorter *sorter);

/* Frees the sorter and removes its runs from disk. NULL is safe. */
void lw_sorter_free(LwSorter *sorter);

/* ---- line_queue (clean/line_queue.c) ----------------------------------- */

/*
 * Hands lines from one thread (the parser) to a consumer running on a
 * thread of its own (the sorter: copying into its arena, writing runs), so
 * that both run at once on two cores. Lines are copied into blocks; a full
 * block goes through a bounded ring of them to the thread, which calls the
 * consumer for each line in order. The producer waits when every block is
 * queued: memory is the blocks (4 MiB by default) whatever the input.
 *
 * The consumer's first error stops it: the next put (or finish) returns
 * that error, and the lines after it are dropped. A line longer than a
 * block is handed to the consumer in the producer's thread, after the
 * thread has taken every line before it (the order stays the same).
 */
typedef struct LwLineQueue LwLineQueue;

/* Takes one line (len bytes as given to lw_line_queue_put). An error
 * (> LW_NOTHING) with err set stops the queue. */
typedef LwStatus (*LwLineConsumer)(void *handle, const char *line, size_t len, LwError *err);

typedef struct {
  size_t block_bytes; /* 0: 1 MiB; smaller than 4 KiB: 4 KiB */
  size_t blocks;      /* ring size; 0: 4; at least 2 */
} LwLineQueueOptions;

/* Starts the queue's thread. options may be NULL. Free with
 * lw_line_queue_free (also after lw_line_queue_finish). */
LwStatus lw_line_queue_new(const LwLineQueueOptions *options, LwLineConsumer consumer,
                           void *handle, LwLineQueue **queue, LwError *err);

/* Copies the line for the consumer. Returns the consumer's error when it
 * has failed (the line is then dropped). */
LwStatus lw_line_queue_put(LwLineQueue *queue, const char *line, size_t len, LwError *err);

/* Waits until the consumer has taken every line, then stops the thread.
 * Returns the consumer's error, if any. */
LwStatus lw_line_queue_finish(LwLineQueue *queue, LwError *err);

/* Stops the thread (dropping lines not yet consumed) and frees the queue.
 * NULL is safe. */
void lw_line_queue_free(LwLineQueue *queue);

/* ---- clean (clean/clean.c) --------------------------------------------- */

/*
 * Cleaning one RDF file the LOD Laundromat way: the code path shared by the
 * worker's parse stage and `lodwash clean`.
 *
 *   input file --guess--> format --lw_rdf_read--> statements
 *     --check--> literal errors counted (the statement is kept)
 *     --skolemize--> blank nodes become <BASE/.well-known/genid/SEED/LABEL>
 *     --lw_nquads_append--> canonical N-Quads lines
 *     --lw_line_queue--> (the sorter's thread)
 *     --lw_sorter (external merge sort, dedupe, bounded memory)-->
 *     --lw_gz_writer (gzip on threads of its own, MD5 of the content)--> output
 *
 * Parsing, checks, skolemization and the canonical lines run in the
 * caller's thread (Turtle's and TriG's pre-scanner on one of its own,
 * rdf_readers/rdf_readers.h); the sorter's copying and run writing on the line
 * queue's thread, its sorting on one more; the final merge in the caller's
 * thread again, the compression and the writing on the gzip writer's.
 *
 * N-Triples and N-Quads take a fast path (rdf/rdf.h): a line that is
 * already canonical goes to the sort as it is; the others go, in batches, to
 * the reader, with their line numbers kept for the error reports.
 *
 * A bad statement is skipped, counted and located; reading goes on. The
 * output is canonical N-Quads sorted bytewise without duplicates; its MD5
 * (of the uncompressed content) names the clean file. Memory stays within
 * the sort budget plus a constant whatever the input size.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Used when no skolem base is given. */
#define LW_CLEAN_DEFAULT_SKOLEM_BASE "https://lodwash.invalid"
#define LW_CLEAN_DEFAULT_MAX_ERRORS 20

typedef enum {
  LW_CLEAN_GZIP_AUTO = 0, /* gzip when output_path ends in ".gz" */
  LW_CLEAN_GZIP_ON,
  LW_CLEAN_GZIP_OFF
} LwCleanCompress;

typedef struct {
  LwFormat format;         /* LW_FORMAT_UNKNOWN: guessed from the content */
  const char *media_type;  /* a hint for the guess; may be NULL */
  const char *base_iri;    /* resolves relative IRIs; NULL: the input's
                                 file:// URI */
  const char *seed_hash;   /* names the blank nodes of this file; NULL:
                                 MD5 of the base IRI */
  const char *skolem_base; /* NULL: LW_CLEAN_DEFAULT_SKOLEM_BASE */
  const char *data_dir;    /* sort runs go to DATA/tmp; NULL: $TMPDIR or /tmp */
  size_t memory_budget;    /* sort memory in bytes; 0: 256 MiB */
  int max_errors;          /* errors kept in the report; <0: none,
                                 0: LW_CLEAN_DEFAULT_MAX_ERRORS */
  const char *output_path; /* written (and removed again on failure) ... */
  FILE *output;            /* ... or, when output_path is NULL, this stream
                                 (the caller's; flushed, not closed) */
  LwCleanCompress compress;
  /* Told the number of statements read every 65,536 statements; may be NULL. */
  void (*progress)(void *handle, unsigned long long statements);
  void *progress_handle;
  /* JSON-LD: fetches remote contexts (see LwReadOptions.load_document). */
  LwStatus (*load_document)(void *handle, const char *url, char **body, size_t *len,
                            char **document_url, LwError *err);
  void *load_handle;
  int gzip_level;    /* 1..9; 0: 1 */
  bool single_thread; /* everything in the caller's thread but the
                                 compression: no line queue, no sorting
                                 thread (for tests; same output) */
  bool no_fast_path; /* N-Triples/N-Quads: send every line through
                                 the reader (for tests; same output) */
  bool gunzip_input; /* read a gzip-compressed input decompressed
                                 (the command line; the worker's inputs are
                                 unpacked, with caps, before) */
} LwCleanOptions;

typedef enum {
  LW_CLEAN_ERROR_SYNTAX = 0, /* a statement was skipped */
  LW_CLEAN_ERROR_LITERAL,    /* lexical form invalid for its datatype (kept) */
  LW_CLEAN_ERROR_LANGTAG     /* malformed BCP 47 language tag, rdf:langString
                                without one, a tag with another datatype: no
                                valid N-Quads form, the statement is dropped */
} LwCleanErrorKind;

typedef struct {
  LwCleanErrorKind kind;
  unsigned line;   /* 1-based; 0 when unknown (literal errors) */
  unsigned column; /* 1-based; 0 when unknown */
  char *message;   /* owned by the report */
} LwCleanError;

typedef struct {
  LwFormat format;                   /* the format read (given or guessed) */
  unsigned long long statements;     /* statements read from the input */
  unsigned long long triples;        /* distinct statements written */
  unsigned long long duplicates;     /* statements dropped as duplicates */
  unsigned long long syntax_errors;  /* statements skipped */
  unsigned long long literal_errors; /* bad lexical forms and language tags */
  unsigned long long bytes;          /* clean content, uncompressed */
  unsigned long long file_bytes;     /* bytes written to the output */
  unsigned sort_runs;                /* runs the sort wrote to disk */
  char md5[LW_HASH_HEX_LEN + 1];     /* MD5 of the clean content */
  LwCleanError *errors;              /* the first max_errors errors, in order */
  size_t n_errors;
} LwCleanReport;

/*
 * Cleans the file at input_path into the output. report is filled (and
 * must be released with lw_clean_report_free) whatever the result.
 * Returns LW_OK when the input was read to its end, even with skipped
 * statements; LW_ERR_IO when the input cannot be opened or the output not
 * written; LW_ERR_FORMAT when the format cannot be guessed (not RDF, with
 * the guess's reason in err); LW_ERR_LIMIT when the reader hit a cap
 * (hostile input): then no output is produced. When the reader cannot go on
 * past some point (LW_ERR_SYNTAX), what it read before is kept and written,
 * the stop counts as a syntax error, and the result is LW_OK.
 */
LwStatus lw_clean_file(const char *input_path, const LwCleanOptions *options,
                       LwCleanReport *report, LwError *err);

/* Frees the error list of report (not report itself). NULL is safe. */
void lw_clean_report_free(LwCleanReport *report);

/* The errors as a JSON array of {"kind", "line", "column", "message"}, for
 * the `error` field of a seed record. The caller frees the string. */
char *lw_clean_report_errors_json(const LwCleanReport *report);

/* "syntax", "literal" or "langtag". */
const char *lw_clean_error_kind_name(LwCleanErrorKind kind);

#endif
