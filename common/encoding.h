/*
 * Settling the character encoding of a data file (the unpack stage, for a
 * seed that is data rather than an archive).
 *
 *   1. A byte order mark wins: UTF-8, UTF-16LE/BE, UTF-32LE/BE.
 *   2. Otherwise a sample (the first LW_ENCODING_SAMPLE bytes) decides: pure
 *      ASCII needs no detector; anything else goes to uchardet. An unknown
 *      verdict is taken as UTF-8.
 *   3. ASCII and UTF-8 are checked over the whole file (streaming). A valid
 *      file without a BOM is left as it is: nothing is written.
 *   4. Anything else (another encoding, a BOM to remove, or UTF-8 with
 *      invalid bytes) is recoded to UTF-8 with iconv while streaming into a
 *      new file: tmp file in DATA/tmp, renamed to out_path when complete.
 *      Invalid or truncated sequences become U+FFFD and are counted; the BOM
 *      is not copied.
 *
 * If the sample was pure ASCII but the file is not valid UTF-8 further on,
 * uchardet gets a second look at the bytes around the first invalid one
 * (a Latin-1 file whose first accent is past the sample).
 *
 * ISO-8859-1 is decoded as WINDOWS-1252 (as web browsers do): real files
 * labelled Latin-1 carry Windows quotes and euro signs in 0x80..0x9F, which
 * Latin-1 would turn into invisible C1 controls. The result still records
 * what the detector said.
 */
#ifndef LW_ENCODING_H
#define LW_ENCODING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/content_meta.h"
#include "common/status.h"

#define LW_ENCODING_SAMPLE (64 * 1024)
#define LW_ENCODING_NAME_MAX 64

typedef struct {
  char encoding[LW_ENCODING_NAME_MAX]; /* the input's encoding, upper case:
                                          "ASCII", "UTF-8", "UTF-16LE",
                                          "WINDOWS-1252", "ISO-8859-1", ... */
  char source[16];         /* how it was settled: "bom", "ascii", "uchardet",
                              "default" (detector had no verdict: UTF-8) */
  bool bom;                /* the input started with a BOM (not copied) */
  bool recoded;            /* a UTF-8 file was written at out_path */
  uint64_t replaced;       /* invalid sequences replaced by U+FFFD */
  uint64_t bytes_in;       /* input size */
  uint64_t bytes_out;      /* output size (== bytes_in when not recoded) */
  LwContentMeta content;   /* of the UTF-8 output, computed while writing;
                              all zero when not recoded (the input's own
                              content record stands) */
} LwEncodingResult;

/* Settles the encoding of in_path as described above. When the file must be
 * recoded, writes the UTF-8 version to out_path (via a tmp file in
 * data_dir/tmp; out_path's folders are created) and sets res->recoded.
 * Otherwise writes nothing. in_path and out_path may be the same path: the
 * original is then replaced atomically. Errors: LW_ERR_IO (read, write),
 * LW_ERR_FORMAT (an encoding iconv does not know). */
LwStatus lw_encoding_settle(const char *data_dir, const char *in_path,
                            const char *out_path, LwEncodingResult *res,
                            LwError *err);

/* Only the first two steps: the BOM, else the detector's verdict on data
 * (a sample). Sets encoding, source and bom; *bom_len gets the BOM's size. */
void lw_encoding_detect(const void *data, size_t len, LwEncodingResult *res,
                        size_t *bom_len);

/* Recodes the stream in (positioned after any BOM) from encoding `from` to
 * UTF-8 into out, replacing invalid sequences with U+FFFD. Adds to
 * *replaced and *bytes_out; feeds what it writes to counter (may be NULL). */
LwStatus lw_encoding_recode(FILE *in, const char *from, FILE *out,
                            LwContentCounter *counter, uint64_t *replaced,
                            uint64_t *bytes_out, LwError *err);

#endif
