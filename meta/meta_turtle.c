/*
 * The metadata graph as Turtle (meta/meta.h): its N-Triples lines sorted
 * (the cleaner's sorter), so that one subject's statements come together
 * and form one block, with the known namespaces written as prefixes.
 */
#include <stdio.h>
#include <string.h>

#include "meta/meta.h"
#include "meta/meta_out.h"

static const struct {
  const char *prefix, *ns;
} prefixes[] = {
  {"rdf", NS_RDF},   {"rdfs", NS_RDFS}, {"xsd", NS_XSD},   {"void", NS_VOID},
  {"dcat", NS_DCAT}, {"dct", NS_DCT},   {"prov", NS_PROV}, {"spdx", NS_SPDX},
  {"http", NS_HTTP}, {"cnt", NS_CNT},   {"lwm", NS_LW},
};
#define N_PREFIXES (sizeof(prefixes) / sizeof(prefixes[0]))

typedef struct {
  LwBuf *out;
  LwBuf subject; /* the current block's subject, "" before the first */
} Writer;

/* Whether a local name can follow a prefix as it is (a conservative subset
 * of Turtle's PN_LOCAL). */
static bool plain_local(const char *s, size_t len)
{
  if (len == 0) {
    return false;
  }
  for (size_t i = 0; i < len; ++i) {
    char ch = s[i];
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' ||
              (i > 0 && ((ch >= '0' && ch <= '9') || ch == '-'));
    if (!ok) {
      return false;
    }
  }
  return true;
}

/* Appends an IRI term (<...>, len bytes) as prefix:local when it can. */
static LwStatus append_iri(LwBuf *out, const char *term, size_t len)
{
  for (size_t i = 0; len > 2 && i < N_PREFIXES; ++i) {
    size_t n = strlen(prefixes[i].ns);
    if (len - 2 > n && !strncmp(term + 1, prefixes[i].ns, n) &&
        plain_local(term + 1 + n, len - 2 - n)) {
      return lw_buf_appendf(out, "%s:%.*s", prefixes[i].prefix, (int)(len - 2 - n),
                            term + 1 + n);
    }
  }
  return lw_buf_append(out, term, len);
}

/* Appends an object: an IRI, or a literal whose datatype IRI may shorten. */
static LwStatus append_object(LwBuf *out, const char *term, size_t len)
{
  if (term[0] == '<') {
    return append_iri(out, term, len);
  }
  const char *dt = len > 3 && term[len - 1] == '>' ? strstr(term, "\"^^<") : NULL;
  while (dt) { /* the last "^^< ends the lexical form (it cannot hold one) */
    const char *next = strstr(dt + 1, "\"^^<");
    if (!next || next >= term + len) {
      break;
    }
    dt = next;
  }
  if (!dt) {
    return lw_buf_append(out, term, len);
  }
  size_t lex = (size_t)(dt - term) + 3; /* through "^^ */
  LwStatus st = lw_buf_append(out, term, lex);
  return st == LW_OK ? append_iri(out, dt + 3, len - lex) : st;
}

/* One sorted line "S P O .\n": a new block when S changes, else "; P O". */
static LwStatus write_line(void *handle, const char *line, size_t len)
{
  Writer *w = handle;
  const char *p = memchr(line, ' ', len);
  const char *o = p ? memchr(p + 1, ' ', len - (size_t)(p + 1 - line)) : NULL;
  if (!o || len < (size_t)(o - line) + 4) {
    return LW_ERR_FORMAT;
  }
  size_t slen = (size_t)(p - line), plen = (size_t)(o - p - 1);
  size_t olen = len - (size_t)(o + 1 - line) - 3; /* " .\n" */
  bool same = w->subject.len == slen && !memcmp(w->subject.data, line, slen);
  LwStatus st = LW_OK;
  if (same) {
    st = lw_buf_append_str(w->out, " ;\n  ");
  } else {
    if (w->subject.len) {
      st = lw_buf_append_str(w->out, " .\n\n");
    }
    lw_buf_reset(&w->subject);
    if (st == LW_OK) {
      st = lw_buf_append(&w->subject, line, slen);
    }
    if (st == LW_OK) {
      st = append_iri(w->out, line, slen);
    }
    if (st == LW_OK) {
      st = lw_buf_append_str(w->out, "\n  ");
    }
  }
  bool type = plen == strlen("<" NS_RDF "type>") &&
              !strncmp(p + 1, "<" NS_RDF "type>", plen);
  if (st == LW_OK) {
    st = type ? lw_buf_append_char(w->out, 'a') : append_iri(w->out, p + 1, plen);
  }
  if (st == LW_OK) {
    st = lw_buf_append_char(w->out, ' ');
  }
  return st == LW_OK ? append_object(w->out, o + 1, olen) : st;
}

static LwStatus add_line(void *handle, const char *line, size_t len)
{
  LwError ignored;
  return lw_sorter_add(handle, line, len, &ignored);
}

LwStatus lw_meta_turtle(LwRecords *c, const LwMetaOptions *o, LwBuf *out, LwError *err)
{
  LwSorter *sorter = lw_sorter_new(
    &(LwSortOptions){.data_dir = o->data_dir,
                     .memory_budget = o->sort_memory ? o->sort_memory : (size_t)64 << 20});
  if (!sorter) {
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  LwMetaOptions triples = *o;
  triples.triples = true;
  LwStatus st = lw_meta_write(c, &triples, add_line, sorter, NULL, err);
  for (size_t i = 0; st == LW_OK && i < N_PREFIXES; ++i) {
    st = lw_buf_appendf(out, "@prefix %s: <%s> .\n", prefixes[i].prefix, prefixes[i].ns);
  }
  if (st == LW_OK) {
    st = lw_buf_append_char(out, '\n');
  }
  Writer w = {.out = out};
  if (st == LW_OK) {
    st = lw_sorter_finish(sorter, write_line, &w, err);
  }
  if (st == LW_OK && w.subject.len) {
    st = lw_buf_append_str(out, " .\n");
  }
  lw_buf_free(&w.subject);
  lw_sorter_free(sorter);
  if (st > LW_NOTHING && err->status <= LW_NOTHING) {
    lw_error_set(err, st, "cannot write the metadata graph as Turtle");
  }
  return st;
}
