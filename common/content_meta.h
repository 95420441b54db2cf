/*
 * Streaming content metadata, the `content` record of a seed (LOD Laundromat
 * seed-list notes):
 *
 *   {"hash": "<md5 hex>", "newline": "LF", "number_of_bytes": N,
 *    "number_of_chars": N, "number_of_lines": N}
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
#ifndef LW_CONTENT_META_H
#define LW_CONTENT_META_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hash.h"
#include "common/status.h"

typedef enum {
  LW_NEWLINE_NONE = 0,
  LW_NEWLINE_LF,
  LW_NEWLINE_CRLF,
  LW_NEWLINE_CR,
  LW_NEWLINE_MIXED
} LwNewline;

typedef struct {
  char hash[LW_HASH_HEX_LEN + 1]; /* MD5 of the bytes, lowercase hex */
  uint64_t number_of_bytes;
  uint64_t number_of_chars;
  uint64_t number_of_lines;
  uint64_t lf, crlf, cr;          /* terminators of each kind */
  LwNewline newline;
} LwContentMeta;

typedef struct LwContentCounter LwContentCounter;

/* A new counter; NULL when out of memory. Free with lw_content_counter_free
 * (NULL safe). */
LwContentCounter *lw_content_counter_new(void);

/* Feeds the next len bytes of the content. */
void lw_content_counter_update(LwContentCounter *counter, const void *data,
                               size_t len);

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

#endif
