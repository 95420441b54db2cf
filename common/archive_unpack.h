/*
 * Unpacking one level of an archive into the data directory (libarchive).
 *
 * lw_archive_unpack opens a file the download stage (or an earlier unpack)
 * put into the data directory and tells what it is:
 *
 *   - data: no archive format and no compression filter recognised (or an
 *     empty file). Nothing is written; the caller settles its encoding
 *     (common/encoding.h) and the seed becomes `unarchived`.
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
#ifndef LW_ARCHIVE_UNPACK_H
#define LW_ARCHIVE_UNPACK_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/content_meta.h"
#include "common/hash.h"
#include "common/status.h"

/* Caps; 0 means "no cap" for each field. */
typedef struct {
  uint64_t max_entries;      /* entry headers per archive (all kinds) */
  uint64_t max_entry_bytes;  /* expanded bytes of one entry */
  uint64_t max_archive_bytes; /* expanded bytes of the whole archive */
  uint64_t max_ratio;        /* expanded bytes / compressed bytes read */
  uint64_t ratio_min_bytes;  /* the ratio is checked only past this many
                                expanded bytes (small files compress well) */
  unsigned max_depth;        /* archive levels: depth + 1 must not exceed it */
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
  LwStatus (*reserve)(void *data, uint64_t need_bytes, uint64_t need_files,
                      uint64_t *bytes, uint64_t *files, LwError *err);
  void *data;
  uint64_t step_bytes; /* asked for beyond the need; 0: 8 MiB */
  uint64_t step_files; /* 0: 64 */
} LwUnpackBudget;

typedef struct {
  const char *data_dir;     /* the data directory (required) */
  const char *kind;         /* store kind for children; NULL means "raw" */
  const char *parent_hash;  /* the seed hash of the file (required, 32 hex) */
  const char *name;         /* the file's name, for a compressed single file's
                               entry name ("dump.nt.gz" -> "dump.nt"); may be
                               NULL */
  unsigned depth;           /* archive levels above this file: 0 for a
                               downloaded file, parent's depth + 1 for a child */
  LwUnpackBudget budget;    /* reserve NULL: no shared budget */
  LwUnpackLimits limits;
  /* Called after every block with the bytes expanded so far (may be NULL).
   * Returning false stops the unpack: it fails with LW_ERR_INTERNAL
   * "interrupted" and leaves nothing behind (a worker asked to stop). */
  bool (*progress)(void *data, uint64_t bytes_expanded);
  void *progress_data;
} LwUnpackOptions;

typedef enum {
  LW_UNPACK_DATA = 0,   /* not an archive: nothing written */
  LW_UNPACK_ARCHIVE     /* an archive: entries written */
} LwUnpackKind;

/* One regular file entry, written to the store. */
typedef struct {
  char hash[LW_HASH_HEX_LEN + 1];  /* the child seed's hash */
  char *path;                      /* the entry's path as in the archive
                                      (UTF-8 where libarchive could convert it) */
  char *relpath;                   /* "KIND/ab/cd/HASH", relative to data_dir */
  uint64_t bytes;                  /* bytes written */
  LwContentMeta content;           /* computed while streaming */
  json_t *archive;                 /* the seed's `archive` field: {path, size,
                                      mtime, filetype, format, filters} */
} LwUnpackEntry;

typedef struct {
  LwUnpackKind kind;
  char *format;             /* libarchive's format name ("GNU tar format",
                               "ZIP 2.0 (deflation)", "raw", ...) */
  json_t *filters;          /* filter names, outermost first (["gzip"]) */
  size_t n_entries;
  LwUnpackEntry *entries;   /* in archive order; a path seen twice keeps the
                               later entry (as tar extraction would) */
  json_t *skipped;          /* [{path, filetype, reason, target?}] */
  uint64_t bytes_expanded;  /* total written (what the budget is charged) */
  uint64_t files_written;   /* entry files written (the budget's files) */
  uint64_t bytes_read;      /* compressed bytes read */
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
