/*
 * Output of a clean file: plain or gzip (zlib), with the compression on
 * threads of their own so that it never sits on the parser's thread.
 *
 * The caller's bytes are copied into fixed-size chunks that go through a
 * bounded ring of slots. Compression threads (pigz's scheme) deflate chunks
 * independently, each primed with the last 32 KiB of the chunk before it
 * and ended with a sync flush, so the pieces concatenate into one ordinary
 * single-member gzip stream, as small as a one-thread one. A writer thread
 * takes the chunks in order, hashes them (MD5 of the uncompressed content),
 * combines the CRC and writes. Memory is bounded: the slots (each a chunk
 * and its compressed form) plus zlib's state per thread, whatever the
 * amount written; when all slots are busy the producer waits.
 *
 * Errors on the writer thread (disk full) are reported by the next
 * lw_gz_writer_write or by lw_gz_writer_close.
 */
#ifndef LW_GZ_WRITER_H
#define LW_GZ_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/hash.h"
#include "common/status.h"

typedef struct LwGzWriter LwGzWriter;

typedef struct {
  bool gzip;             /* compress (gzip format); false: plain bytes */
  int level;             /* zlib level 1..9; 0: 1 (fastest) */
  size_t chunk_bytes;    /* hand-off unit; 0: 512 KiB */
  unsigned queue_chunks; /* slots in the ring; 0: 2 x threads + 2 */
  unsigned threads;      /* compression threads; 0: 2 */
  bool no_md5;           /* the MD5 is not wanted: not computed, stats.md5
                            stays empty (it costs as much as level-1 deflate) */
} LwGzOptions;

typedef struct {
  unsigned long long bytes_in;  /* uncompressed bytes written by the caller */
  unsigned long long bytes_out; /* bytes that went to the file */
  char md5[LW_HASH_HEX_LEN + 1]; /* MD5 of the uncompressed bytes (on close;
                                    empty with no_md5) */
} LwGzStats;

/* Starts a writer on out, which stays the caller's: it must stay open until
 * lw_gz_writer_close or lw_gz_writer_free returns, and the caller closes it.
 * options may be NULL (plain output). On success *writer is set. */
LwStatus lw_gz_writer_open(FILE *out, const LwGzOptions *options,
                           LwGzWriter **writer, LwError *err);

/* Appends len bytes. LW_ERR_IO (or another error) when the writer thread
 * failed; the writer is then only good for lw_gz_writer_free. */
LwStatus lw_gz_writer_write(LwGzWriter *writer, const void *data, size_t len,
                            LwError *err);

/* An LwLineSink-shaped adapter (common/nq_sort.h): handle is the writer.
 * On error the detail is kept for lw_gz_writer_close. */
LwStatus lw_gz_writer_sink(void *handle, const char *line, size_t len);

/* Flushes everything, finishes the gzip stream, flushes out, stops the
 * thread and frees the writer (also on error). stats may be NULL. */
LwStatus lw_gz_writer_close(LwGzWriter *writer, LwGzStats *stats, LwError *err);

/* Stops the thread and frees the writer without finishing the stream (for
 * error paths; the output is then incomplete). NULL is safe. */
void lw_gz_writer_free(LwGzWriter *writer);

#endif
