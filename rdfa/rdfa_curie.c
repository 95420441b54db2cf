/*
 * Attribute values to IRIs (RDFa Core 1.1 §6 and §7.4): safe CURIEs
 * ("[prefix:reference]"), CURIEs, terms, IRIs, and blank nodes ("_:x").
 */
#include <stdlib.h>
#include <string.h>

#include "rdfa/rdfa_private.h"

static const char *SPACE = " \t\r\n\f";

/* value without its surrounding white space: *len bytes from the result. */
static const char *trim(const char *value, size_t *len)
{
  value += strspn(value, SPACE);
  size_t n = strlen(value);
  while (n && strchr(SPACE, value[n - 1])) {
    --n;
  }
  *len = n;
  return value;
}

static char *concat(const char *a, const char *b, size_t blen)
{
  size_t alen = strlen(a);
  char *s = malloc(alen + blen + 1);
  if (s) {
    memcpy(s, a, alen);
    memcpy(s + alen, b, blen);
    s[alen + blen] = '\0';
  }
  return s;
}

/* The IRI of the CURIE s (len bytes, holding a ':'), or NULL when its
 * prefix is not defined. The empty prefix is the XHTML vocabulary's. */
static char *curie_iri(const RdfaScope *sc, const char *s, size_t len)
{
  const char *colon = memchr(s, ':', len);
  size_t plen = (size_t)(colon - s);
  const char *ns = plen ? rdfa_prefix_lookup(sc->prefixes, s, plen) : XHV_NS;
  return ns ? concat(ns, colon + 1, len - plen - 1) : NULL;
}

static bool is_blank_curie(const char *s, size_t len)
{
  return len >= 2 && s[0] == '_' && s[1] == ':';
}

/* Whether s (len bytes) starts with an IRI scheme and ':'. */
static bool has_scheme(const char *s, size_t len)
{
  size_t i = 0;
  if (!len || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) {
    return false;
  }
  while (i < len && s[i] != ':') {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '+' || c == '-' || c == '.')) {
      return false;
    }
    ++i;
  }
  return i < len;
}

/* "_:x" (or "_:" alone, the document's one unnamed blank node). */
static RdfaNode blank_of(RdfaRun *run, const char *s, size_t len)
{
  if (len == 2) {
    if (!run->document_blank.value) {
      run->document_blank = rdfa_node_blank(run);
    }
    return rdfa_node_copy(&run->document_blank);
  }
  return rdfa_node_labelled(run, s + 2, len - 2);
}

static bool resolve_against_base(const RdfaScope *sc, const char *s, size_t len,
                                 RdfaNode *out)
{
  char *ref = strndup(s, len);
  char *iri = NULL;
  if (ref && sc->base) {
    iri = lw_uri_resolve(sc->base, ref);
  } else if (ref && lw_uri_is_absolute(ref)) {
    iri = strdup(ref);
  } else if (ref) {
    rdfa_report(sc->run, "relative IRI <%.200s> and no base IRI", ref);
  }
  free(ref);
  *out = (RdfaNode){.blank = false, .value = iri};
  return iri != NULL;
}

bool rdfa_resolve_resource(const RdfaScope *sc, const char *value, RdfaNode *out)
{
  size_t len;
  const char *s = trim(value, &len);
  if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
    s++;
    len -= 2;
    if (is_blank_curie(s, len)) {
      *out = blank_of(sc->run, s, len);
      return true;
    }
    char *iri = memchr(s, ':', len) ? curie_iri(sc, s, len) : NULL;
    if (!iri && len) {
      rdfa_report(sc->run, "safe CURIE [%.*s] names no prefix in scope: ignored",
                  (int)(len < 200 ? len : 200), s);
    }
    *out = (RdfaNode){.blank = false, .value = iri};
    return iri != NULL;
  }
  if (is_blank_curie(s, len)) {
    *out = blank_of(sc->run, s, len);
    return true;
  }
  char *iri = memchr(s, ':', len) ? curie_iri(sc, s, len) : NULL;
  if (iri) {
    *out = (RdfaNode){.blank = false, .value = iri};
    return true;
  }
  return resolve_against_base(sc, s, len, out);
}

bool rdfa_resolve_iri(const RdfaScope *sc, const char *value, RdfaNode *out)
{
  size_t len;
  const char *s = trim(value, &len);
  return resolve_against_base(sc, s, len, out);
}

char *rdfa_resolve_token(const RdfaScope *sc, const char *token, size_t len,
                         bool allow_blank, RdfaNode *blank)
{
  if (memchr(token, ':', len)) {
    if (is_blank_curie(token, len)) {
      if (allow_blank && blank) {
        *blank = blank_of(sc->run, token, len);
      }
      return NULL;
    }
    char *iri = curie_iri(sc, token, len);
    if (!iri && has_scheme(token, len)) {
      iri = strndup(token, len); /* an absolute IRI */
    }
    return iri;
  }
  if (sc->vocab) {
    return concat(sc->vocab, token, len);
  }
  const char *term = rdfa_term_lookup(sc->run->host, token, len);
  return term ? strdup(term) : NULL;
}
