/*
 * expr.c — integer expressions of launch plans (candidate.h).
 *
 * Grammar (recursive descent, 64-bit signed arithmetic):
 *     expr    := term   (('+' | '-') term)*
 *     term    := unary  (('*' | '/' | '%') unary)*
 *     unary   := ('-' | '+') unary | primary
 *     primary := INTEGER | NAME | FUNC '(' expr ',' expr ')' | '(' expr ')'
 *     FUNC    := ceil_div | round_up | min | max
 * '/' is floor division and '%' the matching modulo (result has the sign of
 * the divisor), as in Python: -7/2 == -4, -7%2 == 1.  Names are the
 * problem's dims.  Division by zero, overflow and unknown names are errors
 * whose message quotes the whole expression.
 */
#include "candidate.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct parser {
    const char *src;       /* whole expression, for messages */
    const char *p;         /* cursor */
    const kf_resolved *r;  /* dims; may be NULL (literals only) */
    kf_error *err;
    int failed;
} parser;

static int perr(parser *ps, const char *fmt, ...) KF_PRINTF(2, 3);
static int perr(parser *ps, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    if (ps->failed)
        return -1;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    ps->failed = 1;
    return kf_fail(ps->err, KF_E_BAD_INPUT, "expression '%s': %s", ps->src, what);
}

static void skip_ws(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int expect(parser *ps, char c)
{
    char msg[64];
    skip_ws(ps);
    if (*ps->p != c) {
        snprintf(msg, sizeof msg, "expected '%c' at offset %d", c, (int)(ps->p - ps->src));
        return perr(ps, "%s", msg);
    }
    ps->p++;
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

/* Applies a binary operator; 0 on success. */
static int apply(parser *ps, char op, int64_t a, int64_t b, int64_t *out)
{
    switch (op) {
    case '+':
        if (__builtin_add_overflow(a, b, out))
            return perr(ps, "%s", "integer overflow");
        return 0;
    case '-':
        if (__builtin_sub_overflow(a, b, out))
            return perr(ps, "%s", "integer overflow");
        return 0;
    case '*':
        if (__builtin_mul_overflow(a, b, out))
            return perr(ps, "%s", "integer overflow");
        return 0;
    case '/':
    case '%':
        if (b == 0)
            return perr(ps, "%s", "division by zero");
        if (a == INT64_MIN && b == -1)
            return perr(ps, "%s", "integer overflow");
        *out = op == '/' ? floor_div(a, b) : a - floor_div(a, b) * b;
        return 0;
    }
    return perr(ps, "%s", "internal: bad operator");
}

static int parse_expr(parser *ps, int64_t *out);

static void known_dims(const kf_resolved *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (!r || !r->problem || r->problem->n_dims == 0) {
        snprintf(buf, len, "-");
        return;
    }
    for (int i = 0; i < r->problem->n_dims && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 r->problem->dim_names[i]);
}

static int parse_call(parser *ps, const char *fn, int64_t *out)
{
    int64_t a, b, t;
    if (expect(ps, '(') || parse_expr(ps, &a) || expect(ps, ',') || parse_expr(ps, &b) ||
        expect(ps, ')'))
        return -1;
    if (!strcmp(fn, "min")) {
        *out = a < b ? a : b;
    } else if (!strcmp(fn, "max")) {
        *out = a > b ? a : b;
    } else if (!strcmp(fn, "ceil_div")) {
        if (b == 0)
            return perr(ps, "%s", "division by zero in ceil_div");
        if (a == INT64_MIN)
            return perr(ps, "%s", "integer overflow");
        *out = -floor_div(-a, b);
    } else { /* round_up */
        if (b == 0)
            return perr(ps, "%s", "division by zero in round_up");
        if (a == INT64_MIN)
            return perr(ps, "%s", "integer overflow");
        t = -floor_div(-a, b);
        if (__builtin_mul_overflow(t, b, out))
            return perr(ps, "%s", "integer overflow");
    }
    return 0;
}

static int parse_name(parser *ps, int64_t *out)
{
    char name[128], dims[512];
    size_t n = 0;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_') {
        if (n + 1 < sizeof name)
            name[n++] = *ps->p;
        ps->p++;
    }
    name[n] = '\0';
    if (!strcmp(name, "min") || !strcmp(name, "max") || !strcmp(name, "ceil_div") ||
        !strcmp(name, "round_up"))
        return parse_call(ps, name, out);
    if (ps->r && ps->r->problem) {
        for (int i = 0; i < ps->r->problem->n_dims; i++) {
            if (!strcmp(ps->r->problem->dim_names[i], name)) {
                *out = ps->r->dims[i];
                return 0;
            }
        }
    }
    known_dims(ps->r, dims, sizeof dims);
    if (!ps->failed) {
        ps->failed = 1;
        kf_fail(ps->err, KF_E_BAD_INPUT, "expression '%s': unknown name '%s' (dims: %s; functions: "
                "ceil_div, round_up, min, max)", ps->src, name, dims);
    }
    return -1;
}

static int parse_primary(parser *ps, int64_t *out)
{
    skip_ws(ps);
    if (isdigit((unsigned char)*ps->p)) {
        int64_t v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, *ps->p - '0', &v))
                return perr(ps, "%s", "integer literal too large");
            ps->p++;
        }
        *out = v;
        return 0;
    }
    if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
        return parse_name(ps, out);
    if (*ps->p == '(') {
        ps->p++;
        if (parse_expr(ps, out))
            return -1;
        return expect(ps, ')');
    }
    if (*ps->p == '\0')
        return perr(ps, "%s", "unexpected end (an operand is missing)");
    {
        char msg[64];
        snprintf(msg, sizeof msg, "unexpected '%c' at offset %d", *ps->p, (int)(ps->p - ps->src));
        return perr(ps, "%s", msg);
    }
}

static int parse_unary(parser *ps, int64_t *out)
{
    skip_ws(ps);
    if (*ps->p == '-' || *ps->p == '+') {
        char op = *ps->p++;
        int64_t v;
        if (parse_unary(ps, &v))
            return -1;
        return op == '-' ? apply(ps, '-', 0, v, out) : (*out = v, 0);
    }
    return parse_primary(ps, out);
}

static int parse_term(parser *ps, int64_t *out)
{
    int64_t acc, rhs;
    if (parse_unary(ps, &acc))
        return -1;
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '*' && op != '/' && op != '%')
            break;
        ps->p++;
        if (parse_unary(ps, &rhs) || apply(ps, op, acc, rhs, &acc))
            return -1;
    }
    *out = acc;
    return 0;
}

static int parse_expr(parser *ps, int64_t *out)
{
    int64_t acc, rhs;
    if (parse_term(ps, &acc))
        return -1;
    for (;;) {
        skip_ws(ps);
        char op = *ps->p;
        if (op != '+' && op != '-')
            break;
        ps->p++;
        if (parse_term(ps, &rhs) || apply(ps, op, acc, rhs, &acc))
            return -1;
    }
    *out = acc;
    return 0;
}

int kf_eval_int_expr(const char *expr, const kf_resolved *r, int64_t *out, kf_error *err)
{
    parser ps = {expr ? expr : "", expr ? expr : "", r, err, 0};
    int64_t v;
    if (!expr)
        return kf_fail(err, KF_E_BAD_INPUT, "expression is missing");
    if (parse_expr(&ps, &v))
        return -1;
    skip_ws(&ps);
    if (*ps.p != '\0') {
        char msg[64];
        snprintf(msg, sizeof msg, "unexpected '%c' at offset %d", *ps.p, (int)(ps.p - ps.src));
        return perr(&ps, "%s", msg);
    }
    *out = v;
    return 0;
}
