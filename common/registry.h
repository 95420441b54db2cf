/*
 * registry.yaml: the user's list of providers. lodwash reads it, never
 * writes it.
 *
 *   d1lod:                         # the provider's name: [A-Za-z0-9]+
 *     void: http://lod.dataone.org/void.ttl   # required, http or https
 *     modified: 2015-10-01         # optional: harvest only when the VoID's
 *                                  #   dcterms:modified is later than this
 *     enabled: false               # optional, default true
 *     interval: 3600               # optional: at least this many seconds
 *                                  #   between two visits of the VoID
 *     notify: https://d1lod.example.org/lodwash   # optional: each harvest's
 *                                  #   report is POSTed there (notify.h)
 *
 * `modified` takes any form common/datetime.h reads ("2015-10-10",
 * "2015-12-04 14:25:44.758604", "2015-12-04T14:25:44Z", with or without a
 * zone). Without it, the first VoID seen starts a harvest.
 *
 * Problems are located as "FILE:LINE: message" and collected on the
 * registry, not printed: the caller decides where they go.
 *   - a YAML syntax error, or a file that is not a mapping of names, fails
 *     the whole load (FILE:LINE:COLUMN), so the caller keeps its last good
 *     registry;
 *   - a bad name, a value that is not a mapping, a missing or non-http(s)
 *     `void`, an unparsable `modified`, a bad `enabled` or `interval`, or a
 *     duplicate key (libyaml accepts duplicates; lodwash does not) is an
 *     error: that provider is skipped, the others are kept. Every occurrence
 *     of a duplicated provider name is skipped, as it is not clear which one
 *     the user meant;
 *   - an unknown key is a warning: the provider is kept.
 */
#ifndef LW_REGISTRY_H
#define LW_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/datetime.h"
#include "common/status.h"

/* Longest provider name accepted (it names a graph and Redis keys). */
#define LW_PROVIDER_NAME_MAX 128

/* Largest registry file read, in bytes. */
#define LW_REGISTRY_MAX_BYTES (4u * 1024u * 1024u)

typedef struct {
  char *name;          /* [A-Za-z0-9]+ */
  char *void_url;      /* http or https URL of the VoID file */
  bool has_modified;   /* `modified` given */
  LwDateTime modified; /* valid when has_modified */
  bool enabled;        /* `enabled`, default true */
  long interval;       /* `interval` in seconds; 0 = every scheduler cycle */
  char *notify_url;    /* `notify`: http(s) URL each harvest's report is
                          POSTed to (scheduler/notify.h), or NULL */
  unsigned line;       /* 1-based line of the name in the file */
} LwProvider;

typedef struct {
  bool warning;  /* true: a warning, the provider was kept */
  unsigned line; /* 1-based */
  char *message; /* "FILE:LINE: ..." */
} LwRegistryProblem;

typedef struct {
  char *path;                  /* the file name used in messages */
  LwProvider *providers;       /* the good entries, in file order */
  size_t count;
  LwRegistryProblem *problems; /* errors and warnings, in file order */
  size_t problem_count;
  size_t error_count;          /* problems that skipped a provider */
} LwRegistry;

/* Reads and checks the registry file at path. On LW_OK *out is a new
 * registry the caller frees with lw_registry_free (it may hold problems).
 * On failure (LW_ERR_IO: unreadable; LW_ERR_SYNTAX: not YAML;
 * LW_ERR_FORMAT: not a mapping; LW_ERR_LIMIT: too large) *out is NULL and
 * err holds "FILE:LINE:COLUMN: ..." where a place is known. */
LwStatus lw_registry_load(const char *path, LwRegistry **out, LwError *err);

/* The same for text in memory; name is used in messages as the file name. */
LwStatus lw_registry_parse(const char *text, size_t len, const char *name,
                           LwRegistry **out, LwError *err);

/* The provider called name, or NULL. The pointer lives as long as registry. */
const LwProvider *lw_registry_find(const LwRegistry *registry, const char *name);

/* True if name is a valid provider name ([A-Za-z0-9]+, not too long). */
bool lw_provider_name_valid(const char *name);

/* True if url is an absolute http or https URL with a host and no spaces or
 * control characters. */
bool lw_registry_url_valid(const char *url);

/* Frees registry and everything in it; NULL is fine. */
void lw_registry_free(LwRegistry *registry);

#endif
