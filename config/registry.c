#include "config/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* The document API keeps the marks (line, column) of every node, which is all
 * we need to locate problems; aliases are shared nodes, so an "alias bomb"
 * costs nothing as long as we only walk two levels, which we do. */

typedef struct {
  LwRegistry *reg;
  yaml_document_t *doc;
  LwStatus oom; /* LW_ERR_NOMEM once an allocation failed */
} Loader;

static char *dup_n(const char *s, size_t n)
{
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

static void add_problem(Loader *ld, bool warning, unsigned line, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

static void add_problem(Loader *ld, bool warning, unsigned line, const char *fmt, ...)
{
  LwRegistry *reg = ld->reg;
  char text[768];
  int n = snprintf(text, sizeof(text), "%s:%u: %s: ", reg->path, line,
                   warning ? "warning" : "error");
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < sizeof(text)) {
    vsnprintf(text + n, sizeof(text) - (size_t)n, fmt, ap);
  }
  va_end(ap);
  LwRegistryProblem *grown = realloc(reg->problems,
                                     (reg->problem_count + 1) * sizeof(*grown));
  char *msg = strdup(text);
  if (!grown || !msg) {
    free(msg);
    if (grown) {
      reg->problems = grown;
    }
    ld->oom = LW_ERR_NOMEM;
    return;
  }
  reg->problems = grown;
  reg->problems[reg->problem_count++] = (LwRegistryProblem){warning, line, msg};
  if (!warning) {
    ++reg->error_count;
  }
}

static unsigned line_of(const yaml_node_t *node)
{
  return (unsigned)node->start_mark.line + 1;
}

/* The text of a scalar node as a new string (NULL if not a scalar). */
static char *scalar_text(Loader *ld, const yaml_node_t *node)
{
  if (node->type != YAML_SCALAR_NODE) {
    return NULL;
  }
  char *s = dup_n((const char *)node->data.scalar.value, node->data.scalar.length);
  if (!s) {
    ld->oom = LW_ERR_NOMEM;
  }
  return s;
}

bool lw_provider_name_valid(const char *name)
{
  size_t n = 0;
  for (; name[n]; ++n) {
    char c = name[n];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      return false;
    }
  }
  return n > 0 && n <= LW_PROVIDER_NAME_MAX;
}

bool lw_registry_url_valid(const char *url)
{
  size_t skip = 0;
  if (!strncasecmp(url, "http://", 7)) {
    skip = 7;
  } else if (!strncasecmp(url, "https://", 8)) {
    skip = 8;
  } else {
    return false;
  }
  for (const unsigned char *p = (const unsigned char *)url; *p; ++p) {
    if (*p <= ' ' || *p == 0x7f) {
      return false;
    }
  }
  /* A host: the authority (up to / ? #) must hold something besides
   * userinfo and port. */
  const char *host = url + skip;
  const char *end = host + strcspn(host, "/?#");
  const char *at = memchr(host, '@', (size_t)(end - host));
  if (at) {
    host = at + 1;
  }
  return end > host && *host != ':';
}

static bool parse_bool(const char *s, bool *out)
{
  static const char *yes[] = {"true", "yes", "on", "y"};
  static const char *no[] = {"false", "no", "off", "n"};
  for (size_t i = 0; i < 4; ++i) {
    if (!strcasecmp(s, yes[i])) {
      *out = true;
      return true;
    }
    if (!strcasecmp(s, no[i])) {
      *out = false;
      return true;
    }
  }
  return false;
}

static bool parse_interval(const char *s, long *out)
{
  if (!*s) {
    return false;
  }
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  /* A week at most: a longer pause is better said with enabled: false. */
  if (errno || *end || v < 1 || v > 7L * 24 * 3600) {
    return false;
  }
  *out = v;
  return true;
}

static void provider_clear(LwProvider *p)
{
  free(p->name);
  free(p->source_url);
  free(p->sparql_graph);
  free(p->sparql_query);
  free(p->notify_url);
  memset(p, 0, sizeof(*p));
}

/* The source kinds a provider may name, each a key of its own. */
static const char *const source_kinds[] = {"void", "dcat", "ckan", "sitemap", "sparql"};

/* The kind key names (a static string), or NULL when key names none. */
static const char *source_kind(const char *key)
{
  for (size_t i = 0; i < sizeof(source_kinds) / sizeof(*source_kinds); ++i) {
    if (!strcmp(key, source_kinds[i])) {
      return source_kinds[i];
    }
  }
  return NULL;
}

/* `void: URL` (or dcat, ckan, sitemap, sparql): the one source of p. On
 * true p owns value. */
static bool read_source(Loader *ld, LwProvider *p, const char *kind, char *value,
                        unsigned line)
{
  if (p->source) {
    add_problem(ld, false, line,
                "provider '%s': names two sources ('%s' and '%s'): one entry is one source "
                "(make two providers)",
                p->name, p->source, kind);
    return false;
  }
  if (!*value) {
    add_problem(ld, false, line, "provider '%s': '%s' is empty", p->name, kind);
    return false;
  }
  if (!lw_registry_url_valid(value)) {
    add_problem(ld, false, line,
                "provider '%s': '%s' must be an http or https URL, not '%s'", p->name, kind,
                value);
    return false;
  }
  p->source = kind;
  p->source_url = value;
  return true;
}

static bool mentions_construct(const char *q)
{
  for (; *q; ++q) {
    if (!strncasecmp(q, "construct", 9)) {
      return true;
    }
  }
  return false;
}

/* `graph: IRI` or `query: CONSTRUCT ...`: what a sparql source asks for
 * (checked against the source once all keys are read). On true p owns
 * value. */
static bool read_sparql_option(Loader *ld, LwProvider *p, const char *key, char *value,
                               unsigned line)
{
  if (!*value) {
    add_problem(ld, false, line, "provider '%s': '%s' is empty", p->name, key);
    return false;
  }
  if (!strcmp(key, "query") && !mentions_construct(value)) {
    add_problem(ld, false, line,
                "provider '%s': 'query' must be a SPARQL CONSTRUCT query (its pages are "
                "the provider's dump)",
                p->name);
    return false;
  }
  char **field = !strcmp(key, "graph") ? &p->sparql_graph : &p->sparql_query;
  *field = value;
  return true;
}

/* Checks one `key: value` of a provider; false when it makes the provider
 * unusable (the problem has been recorded). */
static bool read_setting(Loader *ld, LwProvider *p, const char *key,
                         const yaml_node_t *knode, const yaml_node_t *vnode)
{
  const unsigned line = line_of(knode);
  static const char *known[] = {"void",   "dcat",     "ckan",    "sitemap",
                                "sparql", "modified", "enabled", "interval",
                                "notify", "graph",    "query"};
  bool is_known = false;
  for (size_t i = 0; i < sizeof(known) / sizeof(*known); ++i) {
    is_known = is_known || !strcmp(key, known[i]);
  }
  if (!is_known) {
    add_problem(
      ld, true, line,
      "provider '%s': unknown key '%s' ignored (known: void, dcat, ckan, sitemap, "
      "sparql, modified, enabled, interval, notify, graph, query)",
      p->name, key);
    return true;
  }
  char *value = scalar_text(ld, vnode);
  if (!value) {
    if (!ld->oom) {
      add_problem(ld, false, line,
                  "provider '%s': '%s' must be a single value, not a list or mapping",
                  p->name, key);
    }
    return false;
  }
  bool ok = true;
  const char *kind = source_kind(key);
  if (kind) {
    ok = read_source(ld, p, kind, value, line);
    if (ok) {
      value = NULL;
    }
  } else if (!strcmp(key, "graph") || !strcmp(key, "query")) {
    ok = read_sparql_option(ld, p, key, value, line);
    if (ok) {
      value = NULL;
    }
  } else if (!strcmp(key, "notify")) {
    if (!lw_registry_url_valid(value)) { /* where harvest reports are POSTed */
      add_problem(ld, false, line,
                  "provider '%s': 'notify' must be an http or https URL, not '%s'", p->name,
                  value);
      ok = false;
    } else {
      free(p->notify_url);
      p->notify_url = value;
      value = NULL;
    }
  } else if (!strcmp(key, "modified")) {
    LwError err;
    lw_error_clear(&err);
    if (lw_datetime_parse(value, strlen(value), &p->modified, &err) != LW_OK) {
      add_problem(ld, false, line,
                  "provider '%s': 'modified' is not a date or date-time ('%s': %s)",
                  p->name, value, err.message);
      ok = false;
    } else {
      p->has_modified = true;
    }
  } else if (!strcmp(key, "enabled")) {
    if (!parse_bool(value, &p->enabled)) {
      add_problem(ld, false, line,
                  "provider '%s': 'enabled' must be true or false, not '%s'", p->name,
                  value);
      ok = false;
    }
  } else if (!strcmp(key, "interval")) {
    if (!parse_interval(value, &p->interval)) {
      add_problem(ld, false, line,
                  "provider '%s': 'interval' must be a number of seconds "
                  "between 1 and 604800, not '%s'",
                  p->name, value);
      ok = false;
    }
  }
  free(value);
  return ok;
}

/* Reads the settings mapping of provider p; false if p must be skipped. */
static bool read_provider(Loader *ld, LwProvider *p, const yaml_node_t *map)
{
  if (map->type != YAML_MAPPING_NODE) {
    bool empty = map->type == YAML_SCALAR_NODE && map->data.scalar.length == 0;
    add_problem(ld, false, p->line,
                empty
                  ? "provider '%s' has no settings (it needs a source: void, dcat, ckan, "
                    "sitemap or sparql)"
                  : "provider '%s' must be a mapping of settings (void, modified, ...)",
                p->name);
    return false;
  }
  bool ok = true;
  bool source_seen = false; /* a source key, valid or not */
  const yaml_node_pair_t *pairs = map->data.mapping.pairs.start;
  const size_t n = (size_t)(map->data.mapping.pairs.top - pairs);
  for (size_t i = 0; i < n && !ld->oom; ++i) {
    const yaml_node_t *k = yaml_document_get_node(ld->doc, pairs[i].key);
    const yaml_node_t *v = yaml_document_get_node(ld->doc, pairs[i].value);
    if (!k || !v) {
      continue;
    }
    char *key = scalar_text(ld, k);
    if (!key) {
      if (!ld->oom) {
        add_problem(ld, false, line_of(k), "provider '%s': a key must be a plain name",
                    p->name);
      }
      ok = false;
      continue;
    }
    source_seen = source_seen || source_kind(key);
    /* libyaml keeps duplicate keys; a second value would silently win. */
    bool dup = false;
    for (size_t j = 0; j < i && !dup; ++j) {
      const yaml_node_t *prev = yaml_document_get_node(ld->doc, pairs[j].key);
      if (prev && prev->type == YAML_SCALAR_NODE &&
          prev->data.scalar.length == strlen(key) &&
          !memcmp(prev->data.scalar.value, key, strlen(key))) {
        add_problem(ld, false, line_of(k),
                    "provider '%s': duplicate key '%s' (first on line %u)", p->name, key,
                    line_of(prev));
        dup = true;
      }
    }
    if (dup) {
      ok = false;
    } else if (!read_setting(ld, p, key, k, v)) {
      ok = false;
    }
    free(key);
  }
  if (!source_seen) {
    add_problem(ld, false, p->line,
                "provider '%s': its source is missing: 'void' (a VoID file's URL), or "
                "'dcat', 'ckan', 'sitemap' or 'sparql'",
                p->name);
    ok = false;
  }
  if (ok && (p->sparql_graph || p->sparql_query) && strcmp(p->source, "sparql")) {
    add_problem(ld, true, p->line,
                "provider '%s': 'graph' and 'query' apply to a sparql source only: ignored",
                p->name);
  }
  return ok;
}

/* How many times the top-level key at index i occurs, and the line of the
 * first other occurrence. */
static size_t count_name(Loader *ld, const yaml_node_pair_t *pairs, size_t n, size_t i,
                         unsigned *other_line)
{
  const yaml_node_t *k = yaml_document_get_node(ld->doc, pairs[i].key);
  size_t count = 0;
  for (size_t j = 0; j < n; ++j) {
    const yaml_node_t *o = yaml_document_get_node(ld->doc, pairs[j].key);
    if (o && o->type == YAML_SCALAR_NODE &&
        o->data.scalar.length == k->data.scalar.length &&
        !memcmp(o->data.scalar.value, k->data.scalar.value, k->data.scalar.length)) {
      ++count;
      if (j != i && !*other_line) {
        *other_line = line_of(o);
      }
    }
  }
  return count;
}

static void read_providers(Loader *ld, const yaml_node_t *root)
{
  const yaml_node_pair_t *pairs = root->data.mapping.pairs.start;
  const size_t n = (size_t)(root->data.mapping.pairs.top - pairs);
  LwRegistry *reg = ld->reg;
  reg->providers = calloc(n ? n : 1, sizeof(*reg->providers));
  if (!reg->providers) {
    ld->oom = LW_ERR_NOMEM;
    return;
  }
  for (size_t i = 0; i < n && !ld->oom; ++i) {
    const yaml_node_t *k = yaml_document_get_node(ld->doc, pairs[i].key);
    const yaml_node_t *v = yaml_document_get_node(ld->doc, pairs[i].value);
    if (!k || !v) {
      continue;
    }
    LwProvider p = {0};
    p.enabled = true;
    p.line = line_of(k);
    p.name = scalar_text(ld, k);
    if (!p.name) {
      if (!ld->oom) {
        add_problem(ld, false, p.line, "a provider name must be a plain name");
      }
      continue;
    }
    if (!lw_provider_name_valid(p.name)) {
      add_problem(ld, false, p.line,
                  "bad provider name '%s': use only letters A-Z, a-z and digits "
                  "(1 to %d; it names the provider's graph)",
                  p.name, LW_PROVIDER_NAME_MAX);
      provider_clear(&p);
      continue;
    }
    unsigned other = 0;
    if (count_name(ld, pairs, n, i, &other) > 1) {
      add_problem(ld, false, p.line,
                  "duplicate provider '%s' (also on line %u): every entry of "
                  "that name is skipped",
                  p.name, other);
      provider_clear(&p);
      continue;
    }
    if (read_provider(ld, &p, v)) {
      reg->providers[reg->count++] = p;
    } else {
      provider_clear(&p);
    }
  }
}

/* The 1-based line of a byte offset in text (for reader errors, which carry
 * an offset rather than a mark). */
static unsigned line_at(const char *text, size_t len, size_t offset)
{
  unsigned line = 1;
  for (size_t i = 0; i < offset && i < len; ++i) {
    line += text[i] == '\n';
  }
  return line;
}

static LwStatus yaml_failure(const yaml_parser_t *parser, const char *text, size_t len,
                             const char *name, LwError *err)
{
  if (parser->error == YAML_MEMORY_ERROR) {
    return lw_error_set(err, LW_ERR_NOMEM, "%s: out of memory reading YAML", name);
  }
  if (parser->error == YAML_READER_ERROR) {
    return lw_error_set(err, LW_ERR_SYNTAX, "%s:%u: YAML error: %s", name,
                        line_at(text, len, parser->problem_offset),
                        parser->problem ? parser->problem : "unreadable text");
  }
  const yaml_mark_t *m = &parser->problem_mark;
  if (parser->context) {
    return lw_error_set(err, LW_ERR_SYNTAX, "%s:%u:%u: YAML error: %s (%s at line %u)",
                        name, (unsigned)m->line + 1, (unsigned)m->column + 1,
                        parser->problem ? parser->problem : "syntax error", parser->context,
                        (unsigned)parser->context_mark.line + 1);
  }
  return lw_error_set(err, LW_ERR_SYNTAX, "%s:%u:%u: YAML error: %s", name,
                      (unsigned)m->line + 1, (unsigned)m->column + 1,
                      parser->problem ? parser->problem : "syntax error");
}

/* Loads the first document; warns if more follow (only the first counts).
 * A syntax error anywhere in the file fails the load. */
static LwStatus load_document(yaml_parser_t *parser, yaml_document_t *doc, Loader *ld,
                              const char *text, size_t len, const char *name, LwError *err)
{
  if (!yaml_parser_load(parser, doc)) {
    return yaml_failure(parser, text, len, name, err);
  }
  yaml_document_t next;
  if (!yaml_parser_load(parser, &next)) {
    yaml_document_delete(doc);
    return yaml_failure(parser, text, len, name, err);
  }
  const yaml_node_t *next_root = yaml_document_get_root_node(&next);
  if (next_root) {
    add_problem(ld, true, line_of(next_root),
                "a second YAML document ('---') is ignored: the registry is the first");
  }
  yaml_document_delete(&next);
  return LW_OK;
}

LwStatus lw_registry_parse(const char *text, size_t len, const char *name, LwRegistry **out,
                           LwError *err)
{
  *out = NULL;
  LwRegistry *reg = calloc(1, sizeof(*reg));
  if (!reg || !(reg->path = strdup(name ? name : "registry"))) {
    free(reg);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  name = reg->path;
  if (len > LW_REGISTRY_MAX_BYTES) {
    lw_error_set(err, LW_ERR_LIMIT, "%s: larger than %u bytes", name,
                 LW_REGISTRY_MAX_BYTES);
    lw_registry_free(reg);
    return LW_ERR_LIMIT;
  }
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    lw_registry_free(reg);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  yaml_document_t doc;
  Loader ld = {reg, &doc, LW_OK};
  LwStatus st = load_document(&parser, &doc, &ld, text, len, name, err);
  yaml_parser_delete(&parser);
  if (st != LW_OK) {
    lw_registry_free(reg);
    return st;
  }
  const yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (!root || (root->type == YAML_SCALAR_NODE && root->data.scalar.length == 0)) {
    add_problem(&ld, true, 1, "no providers in the registry");
  } else if (root->type != YAML_MAPPING_NODE) {
    st = lw_error_set(err, LW_ERR_FORMAT,
                      "%s:%u:%u: the registry must be a mapping from provider "
                      "names to their settings",
                      name, line_of(root), (unsigned)root->start_mark.column + 1);
  } else {
    read_providers(&ld, root);
  }
  yaml_document_delete(&doc);
  if (st == LW_OK && ld.oom) {
    st = lw_error_set(err, LW_ERR_NOMEM, "%s: out of memory", name);
  }
  if (st != LW_OK) {
    lw_registry_free(reg);
    return st;
  }
  *out = reg;
  return LW_OK;
}

LwStatus lw_registry_read(const char *path, char **text, size_t *len, LwError *err)
{
  *text = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    return lw_error_set(err, LW_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  }
  char *buf = malloc(LW_REGISTRY_MAX_BYTES + 2);
  if (!buf) {
    fclose(f);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  size_t n = fread(buf, 1, LW_REGISTRY_MAX_BYTES + 1, f);
  bool failed = ferror(f);
  fclose(f);
  if (failed) {
    free(buf);
    return lw_error_set(err, LW_ERR_IO, "%s: read error", path);
  }
  buf[n] = '\0'; /* n > max is reported by lw_registry_parse */
  *text = buf;
  *len = n;
  return LW_OK;
}

LwStatus lw_registry_load(const char *path, LwRegistry **out, LwError *err)
{
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  LW_TRY(lw_registry_read(path, &text, &len, err));
  LwStatus st = lw_registry_parse(text, len, path, out, err);
  free(text);
  return st;
}

const LwProvider *lw_registry_find(const LwRegistry *registry, const char *name)
{
  if (!registry || !name) {
    return NULL;
  }
  for (size_t i = 0; i < registry->count; ++i) {
    if (!strcmp(registry->providers[i].name, name)) {
      return &registry->providers[i];
    }
  }
  return NULL;
}

void lw_registry_free(LwRegistry *registry)
{
  if (!registry) {
    return;
  }
  for (size_t i = 0; i < registry->count; ++i) {
    provider_clear(&registry->providers[i]);
  }
  for (size_t i = 0; i < registry->problem_count; ++i) {
    free(registry->problems[i].message);
  }
  free(registry->providers);
  free(registry->problems);
  free(registry->path);
  free(registry);
}
