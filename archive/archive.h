/*
 * lodwash's archive library: unpacking archives and compressed files
 * (libarchive) into the files store with every size capped, and detecting and
 * converting character encodings (uchardet, iconv) to UTF-8.
 *
 * Uses base and files. Below, one section per module; its code is
 * archive/<module>.c.
 */
#ifndef LW_ARCHIVE_H
#define LW_ARCHIVE_H

#include "base/base.h"
#include "files/files.h"

/* ---- encoding (archive/encoding.c) ------------------------------------- */

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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LW_ENCODING_SAMPLE (64 * 1024)
#define LW_ENCODING_NAME_MAX 64

typedef struct {
  char encoding[LW_ENCODING_NAME_MAX]; /* the input's encoding, upper case:
                                          "ASCII", "UTF-8", "UTF-16LE",
                                          "WINDOWS-1252", "ISO-8859-1", ... */
  char source[16];                     /* how it was settled: "bom", "ascii", "utf8"
                              (mostly well-formed UTF-8), "uchardet",
                              "default" (detector had no verdict: UTF-8),
                              "fallback" (iconv does not know the detector's
                              name: repaired as UTF-8) */
  bool bom;                            /* the input started with a BOM (not copied) */
  bool recoded;                        /* a UTF-8 file was written at out_path */
  uint64_t replaced;                   /* invalid sequences replaced by U+FFFD */
  uint64_t bytes_in;                   /* input size */
  uint64_t bytes_out;                  /* output size (== bytes_in when not recoded) */
  LwContentMeta content;               /* of the UTF-8 output, computed while writing;
                              all zero when not recoded (the input's own
                              content record stands) */
} LwEncodingResult;

/* Settles the encoding of in_path as described above. When the file must be
 * recoded, writes the UTF-8 version to out_path (via a tmp file in
 * data_dir/tmp; out_path's folders are created) and sets res->recoded.
 * Otherwise writes nothing. in_path and out_path may be the same path: the
 * original is then replaced atomically. Errors: LW_ERR_IO (read, write),
 * LW_ERR_FORMAT (an encoding iconv does not know). */
LwStatus lw_encoding_settle(const char *data_dir, const char *in_path, const char *out_path,
                            LwEncodingResult *res, LwError *err);

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

/* ---- archive_unpack (archive/archive_unpack.c) ------------------------- */

/*
 * Unpacking one level of an archive into the data directory (libarchive).
 *
 * lw_archive_unpack opens a file the download stage (or an earlier unpack)
 * put into the data directory and tells what it is:
 *
 *   - data: no archive format and no compression filter recognised (or an
 *     empty file). Nothing is written; the caller settles its encoding
 *     (archive/archive.h) and the seed becomes `unarchived`.
 *   - an archive: every regular file entry is streamed into its own hashed
 *     file DATA/KIND/ab/cd/CHILDHASH (tmp file + rename), where
 *     CHILDHASH = MD5(parent hash as 32 hex digits immediately followed by the
 *     entry's path bytes). Entry names never become file paths. A compressed
 *     single file (gzip, bzip2, xz, lzma, zstd, lz4, compress, ... with no
 *     archive format inside) is an archive of exactly one entry: its
 *     decompressed data, named after opts->name without its compression
 *     extension (or "data"). Nested archives are not opened: each child is
 *     unpacked by its own job, with depth + 1.
 *
 * Symbolic links, hard links, devices, FIFOs, sockets and encrypted entries
 * are skipped and listed in result->skipped; directories are ignored.
 *
 * Caps (LwUnpackLimits): entries per archive, expanded bytes per entry and
 * per archive, the expansion ratio (bytes expanded so far / compressed bytes
 * read so far, checked while streaming once ratio_min_bytes were expanded)
 * and the nesting depth. A budget shared with other unpacks (LwUnpackBudget:
 * a harvest's, across archive levels and workers) is asked for room before
 * each file is created and before each block is written. Hitting one fails
 * the archive with LW_ERR_LIMIT and a message naming the cap. A failed
 * archive (cap, corrupt or truncated input, I/O error) leaves nothing behind:
 * the tmp file being written is removed and the child files already
 * committed by this call are unlinked.
 *
 * Formats: every reader libarchive has except mtree (an mtree "archive" is a
 * text manifest whose reader opens the files it names on the local disk: a
 * hostile download could read /etc/passwd). Filters: all of them.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps; 0 means "no cap" for each field. */
typedef struct {
  uint64_t max_entries;       /* entry headers per archive (all kinds) */
  uint64_t max_entry_bytes;   /* expanded bytes of one entry */
  uint64_t max_archive_bytes; /* expanded bytes of the whole archive */
  uint64_t max_ratio;         /* expanded bytes / compressed bytes read */
  uint64_t ratio_min_bytes;   /* the ratio is checked only past this many
                                expanded bytes (small files compress well) */
  unsigned max_depth;         /* archive levels: depth + 1 must not exceed it */
} LwUnpackLimits;

/* Defaults: 100,000 entries, 16 GiB per entry, 64 GiB per archive, ratio 200
 * past 4 MiB, depth 8. */
LwUnpackLimits lw_unpack_limits_default(void);

/* A budget of bytes and files shared with other unpacks. The unpack asks for
 * room ahead of what it writes (in steps, so that the owner of the budget
 * is asked once per step, not per block) and never writes past what was
 * granted: the bytes and files on disk never exceed the budget, however
 * many unpacks share it at once. */
typedef struct {
  /* Asks that this unpack may have written *bytes bytes and *files files in
   * all (cumulative totals of this call; *bytes >= need_bytes, *files >=
   * need_files). On LW_OK *bytes and *files hold what was granted, at least
   * need_bytes and need_files. When even the need does not fit: LW_ERR_LIMIT
   * with a message saying so (the unpack then fails and leaves nothing). */
  LwStatus (*reserve)(void *data, uint64_t need_bytes, uint64_t need_files, uint64_t *bytes,
                      uint64_t *files, LwError *err);
  void *data;
  uint64_t step_bytes; /* asked for beyond the need; 0: 8 MiB */
  uint64_t step_files; /* 0: 64 */
} LwUnpackBudget;

typedef struct {
  const char *data_dir;    /* the data directory (required) */
  const char *kind;        /* store kind for children; NULL means "raw" */
  const char *parent_hash; /* the seed hash of the file (required, 32 hex) */
  const char *name;        /* the file's name, for a compressed single file's
                               entry name ("dump.nt.gz" -> "dump.nt"); may be
                               NULL */
  unsigned depth;          /* archive levels above this file: 0 for a
                               downloaded file, parent's depth + 1 for a child */
  LwUnpackBudget budget;   /* reserve NULL: no shared budget */
  LwUnpackLimits limits;
  /* Called after every block with the bytes expanded so far (may be NULL).
   * Returning false stops the unpack: it fails with LW_ERR_INTERNAL
   * "interrupted" and leaves nothing behind (a worker asked to stop). */
  bool (*progress)(void *data, uint64_t bytes_expanded);
  void *progress_data;
} LwUnpackOptions;

typedef enum {
  LW_UNPACK_DATA = 0, /* not an archive: nothing written */
  LW_UNPACK_ARCHIVE   /* an archive: entries written */
} LwUnpackKind;

/* One regular file entry, written to the store. */
typedef struct {
  char hash[LW_HASH_HEX_LEN + 1]; /* the child seed's hash */
  char *path;                     /* the entry's path as in the archive
                                      (UTF-8 where libarchive could convert it) */
  char *relpath;                  /* "KIND/ab/cd/HASH", relative to data_dir */
  uint64_t bytes;                 /* bytes written */
  LwContentMeta content;          /* computed while streaming */
  json_t *archive;                /* the seed's `archive` field: {path, size,
                                      mtime, filetype, format, filters} */
} LwUnpackEntry;

typedef struct {
  LwUnpackKind kind;
  char *format;    /* libarchive's format name ("GNU tar format",
                               "ZIP 2.0 (deflation)", "raw", ...) */
  json_t *filters; /* filter names, outermost first (["gzip"]) */
  size_t n_entries;
  LwUnpackEntry *entries;  /* in archive order; a path seen twice keeps the
                               later entry (as tar extraction would) */
  json_t *skipped;         /* [{path, filetype, reason, target?}] */
  uint64_t bytes_expanded; /* total written (what the budget is charged) */
  uint64_t files_written;  /* entry files written (the budget's files) */
  uint64_t bytes_read;     /* compressed bytes read */
} LwUnpackResult;

/* Unpacks one level of the file at path (see above). On LW_OK *out is a new
 * result owned by the caller (lw_unpack_result_free). On error *out is NULL,
 * err says why, and no child file of this call is left in the store. */
LwStatus lw_archive_unpack(const char *path, const LwUnpackOptions *opts,
                           LwUnpackResult **out, LwError *err);

/* The child seed hash for an entry path: MD5(parent_hash || path). */
void lw_unpack_child_hash(const char *parent_hash, const char *entry_path,
                          char out[LW_HASH_HEX_LEN + 1]);

/* The entry name of a compressed single file: name minus a known compression
 * extension (".gz", ".bz2", ".xz", ".lzma", ".zst", ".lz4", ".Z", ...);
 * ".tgz"-like names are not special. NULL or "" gives "data". Caller frees. */
char *lw_unpack_single_name(const char *name);

/* Safe on NULL. */
void lw_unpack_result_free(LwUnpackResult *result);

#endif
