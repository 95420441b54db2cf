/*
 * lodwash's files library: the data directory (every kept file named by a
 * hash, written to a temporary file and renamed into place), the `content`
 * record counted while bytes stream past (digest, bytes, characters, lines,
 * newlines) and a gzip writer.
 *
 * Uses base. Below, one section per module; its code is files/<module>.c.
 */
#ifndef LW_FILES_H
#define LW_FILES_H

#include "base/base.h"

/* ---- file_store (files/file_store.c) ----------------------------------- */

/*
 * The data directory: every file lodwash keeps is named by a hash (never by a
 * name from the network) and sharded two levels deep so no folder grows huge:
 *
 *   DATA/KIND/ab/cd/abcd...SUFFIX     (KIND: "raw", "clean", "graphs", ...)
 *
 * Files are written to DATA/tmp and renamed into place when complete, so a
 * crash never leaves a half file that looks whole.
 */
#include <stddef.h>
#include <stdio.h>

/* Writes "DATA/KIND/ab/cd/HASHSUFFIX" into buf. Returns LW_ERR_LIMIT if buf
 * is too small. */
LwStatus lw_store_path(const char *data_dir, const char *kind, const char *hash,
                       const char *suffix, char *buf, size_t size);

/* The same path relative to the data directory ("KIND/ab/cd/HASHSUFFIX"),
 * as recorded on seeds. */
LwStatus lw_store_relpath(const char *kind, const char *hash, const char *suffix, char *buf,
                          size_t size);

/* Creates a new empty temporary file in DATA/tmp, opened for writing and
 * reading; its path goes into path_buf. The caller closes it and either
 * commits it with lw_store_commit or removes it. */
LwStatus lw_store_tmpfile(const char *data_dir, char *path_buf, size_t size, FILE **out,
                          LwError *err);

/* Renames tmp_path to final_path atomically, creating final_path's folders. */
LwStatus lw_store_commit(const char *tmp_path, const char *final_path, LwError *err);

/* Calls fn(handle, NAME, err) for each entry DATA/graphs/NAME<suffix>
 * (NAME shorter than 256 bytes), in directory order, until fn fails. No
 * graphs folder: nothing to do. */
LwStatus lw_store_each_graph(const char *data_dir, const char *suffix,
                             LwStatus (*fn)(void *handle, const char *name, LwError *err),
                             void *handle, LwError *err);

/* mkdir -p of path's parent folders (not of path itself). */
LwStatus lw_store_mkparents(const char *path, LwError *err);

/* ---- content_meta (files/content_meta.c) ------------------------------- */

/*
 * Streaming content metadata, the `content` record of a seed (LOD Laundromat
 * seed-list notes):
 *
 *   {"hash": "<md5 hex>", "sha256": "<sha-256 hex>", "newline": "CRLF",
 *    "number_of_bytes": N, "number_of_chars": N, "number_of_lines": N}
 *
 * with `newline` left out when it is "LF" and `number_of_chars` when it is
 * number_of_bytes (most dumps: Redis keeps every seed's record at rest);
 * a reader takes the absence for those values.
 *
 * computed while the bytes stream past (download, unpack, clean): feed every
 * chunk to lw_content_counter_update in order, then finish. Memory is
 * constant whatever the input size; there is never a second pass.
 *
 * Definitions (so every stage counts the same way):
 * - number_of_bytes: bytes fed.
 * - number_of_chars: UTF-8 code points, counted as the bytes that are not
 *   UTF-8 continuation bytes (10xxxxxx). For valid UTF-8 this is exact; for
 *   other encodings it is an approximation (the unpack stage recodes to
 *   UTF-8 and counts again).
 * - line terminators: "\r\n" (CRLF), a "\n" not preceded by "\r" (LF), a
 *   "\r" not followed by "\n" (CR); a CRLF split across two chunks counts once.
 * - number_of_lines: terminators, plus one if the last line is not empty and
 *   has no terminator. An empty input has 0 lines; "a" has 1; "a\n" has 1;
 *   "a\nb" has 2.
 * - newline: LF, CRLF or CR when only that terminator occurs, "mixed" when
 *   more than one kind does, "none" when there is no terminator at all.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  LW_NEWLINE_NONE = 0,
  LW_NEWLINE_LF,
  LW_NEWLINE_CRLF,
  LW_NEWLINE_CR,
  LW_NEWLINE_MIXED
} LwNewline;

typedef struct {
  char hash[LW_HASH_HEX_LEN + 1]; /* MD5 of the bytes, lowercase hex */
  char sha256[LW_SHA256_HEX_LEN + 1]; /* SHA-256 of the bytes, lowercase hex */
  uint64_t number_of_bytes;
  uint64_t number_of_chars;
  uint64_t number_of_lines;
  uint64_t lf, crlf, cr; /* terminators of each kind */
  LwNewline newline;
} LwContentMeta;

typedef struct LwContentCounter LwContentCounter;

/* A new counter; NULL when out of memory. Free with lw_content_counter_free
 * (NULL safe). */
LwContentCounter *lw_content_counter_new(void);

/* Feeds the next len bytes of the content. */
void lw_content_counter_update(LwContentCounter *counter, const void *data, size_t len);

/* Bytes fed so far. */
uint64_t lw_content_counter_bytes(const LwContentCounter *counter);

/* Completes the figures into out. The counter cannot be fed afterwards;
 * free it. */
void lw_content_counter_finish(LwContentCounter *counter, LwContentMeta *out);

void lw_content_counter_free(LwContentCounter *counter);

/* "LF", "CRLF", "CR", "mixed" or "none". */
const char *lw_newline_name(LwNewline newline);

/* The seed record's `content` object (new reference; NULL when out of
 * memory). The per-kind terminator counts are not part of it. */
json_t *lw_content_meta_json(const LwContentMeta *meta);

/* Convenience: the metadata of a whole file, read once in bounded memory. */
LwStatus lw_content_meta_file(const char *path, LwContentMeta *out, LwError *err);

/* ---- gz_writer (files/gz_writer.c) ------------------------------------- */

/*
 * Output of a clean file: plain or gzip (libdeflate), with the compression
 * on threads of their own so that it never sits on the parser's thread.
 *
 * The caller's bytes are copied into fixed-size chunks that go through a
 * bounded ring of slots. Compression threads deflate each chunk alone into
 * one gzip member (libdeflate compresses whole buffers, about twice as fast
 * as zlib's level 1, with the same ratio or better); the members
 * concatenate into one gzip file, which gzip and zlib's gzread read as one
 * stream. A writer thread takes the chunks in order and writes them. The
 * MD5 of the uncompressed content is taken by the writer thread, or, with
 * one compression thread (the default on two cores), by the producer as it
 * hands each chunk over. Memory is bounded: the
 * slots (each a chunk and its compressed form) plus a compressor per thread,
 * whatever the amount written; when all slots are busy the producer waits.
 *
 * Errors on the writer thread (disk full) are reported by the next
 * lw_gz_writer_write or by lw_gz_writer_close.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct LwGzWriter LwGzWriter;

typedef struct {
  bool gzip;             /* compress (gzip format); false: plain bytes */
  int level;             /* deflate level 1..9; 0: 1 (fastest) */
  size_t chunk_bytes;    /* hand-off unit; 0: 512 KiB */
  unsigned queue_chunks; /* slots in the ring; 0: 2 x threads + 2 */
  unsigned threads;      /* compression threads; 0: 2 (1 on two cores) */
  bool no_md5;           /* the MD5 is not wanted: not computed, stats.md5
                            stays empty (it costs as much as level-1 deflate) */
} LwGzOptions;

typedef struct {
  unsigned long long bytes_in;   /* uncompressed bytes written by the caller */
  unsigned long long bytes_out;  /* bytes that went to the file */
  char md5[LW_HASH_HEX_LEN + 1]; /* MD5 of the uncompressed bytes (on close;
                                    empty with no_md5) */
} LwGzStats;

/* Starts a writer on out, which stays the caller's: it must stay open until
 * lw_gz_writer_close or lw_gz_writer_free returns, and the caller closes it.
 * options may be NULL (plain output). On success *writer is set. */
LwStatus lw_gz_writer_open(FILE *out, const LwGzOptions *options, LwGzWriter **writer,
                           LwError *err);

/* Appends len bytes. LW_ERR_IO (or another error) when the writer thread
 * failed; the writer is then only good for lw_gz_writer_free. */
LwStatus lw_gz_writer_write(LwGzWriter *writer, const void *data, size_t len, LwError *err);

/* An LwLineSink-shaped adapter (clean/clean.h): handle is the writer.
 * On error the detail is kept for lw_gz_writer_close. */
LwStatus lw_gz_writer_sink(void *handle, const char *line, size_t len);

/* Flushes everything, finishes the gzip stream, flushes out, stops the
 * thread and frees the writer (also on error). stats may be NULL. */
LwStatus lw_gz_writer_close(LwGzWriter *writer, LwGzStats *stats, LwError *err);

/* Stops the thread and frees the writer without finishing the stream (for
 * error paths; the output is then incomplete). NULL is safe. */
void lw_gz_writer_free(LwGzWriter *writer);

#endif
