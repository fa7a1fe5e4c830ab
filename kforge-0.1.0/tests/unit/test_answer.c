/* test_answer.c — fenced code blocks and tolerant JSON out of model answers. */
#include <stdlib.h>
#include <json-c/json.h>
#include "llm/answer.h"
#include "../kf_test.h"

static const char *const C_LANGS[] = {"c", NULL};
static const char *const CL_LANGS[] = {"opencl", "cl", "c", NULL};

static char *extract_ok(const char *text, const char *const *langs)
{
    char *code = NULL;
    kf_error err = {0};
    int rc = kf_answer_extract(text, langs, &code, &err);
    KF_CHECK_MSG(rc == 0, "extract failed: %s", err.msg);
    return code;
}

static void extract_fails(const char *text, const char *const *langs, int code, const char *needle)
{
    char *out = (char *)"untouched";
    kf_error err = {0};
    KF_CHECK_INT(kf_answer_extract(text, langs, &out, &err), -1);
    KF_CHECK(out == NULL);
    KF_CHECK_INT(err.code, code);
    KF_CHECK_CONTAINS(err.msg, needle);
    KF_CHECK(strchr(err.msg, '\n') == NULL);
}

KF_TEST(prose_around_code)
{
    char *c = extract_ok("Here is the kernel:\n\n```c\nvoid kf_kernel(void) {}\n```\n\nIt is fast because...\n",
                         C_LANGS);
    KF_CHECK_STR(c, "void kf_kernel(void) {}\n");
    free(c);
}

KF_TEST(last_complete_block_of_wanted_kind)
{
    const char *t = "First draft:\n```c\nint a;\n```\nPlan:\n```json\n{\"x\": 1}\n```\n"
                    "Final version:\n```C\nint b;\nint c;\n```\nand a shell line:\n```sh\nmake\n```\n";
    char *c = extract_ok(t, C_LANGS);
    KF_CHECK_STR(c, "int b;\nint c;\n");
    free(c);
    char *j = extract_ok(t, (const char *const[]){"json", NULL});
    KF_CHECK_STR(j, "{\"x\": 1}\n");
    free(j);
}

KF_TEST(opencl_tags_and_untagged_fallback)
{
    char *c = extract_ok("```cl\n__kernel void k() {}\n```\n", CL_LANGS);
    KF_CHECK_STR(c, "__kernel void k() {}\n");
    free(c);
    c = extract_ok("```opencl\n__kernel void a() {}\n```\n", CL_LANGS);
    KF_CHECK_STR(c, "__kernel void a() {}\n");
    free(c);
    /* untagged only when no tagged block matches */
    c = extract_ok("```\nuntagged();\n```\n```cuda\n__global__ void g() {}\n```\n",
                   (const char *const[]){"cuda", NULL});
    KF_CHECK_STR(c, "__global__ void g() {}\n");
    free(c);
    c = extract_ok("```\nuntagged();\n```\n```python\nprint(1)\n```\n", C_LANGS);
    KF_CHECK_STR(c, "untagged();\n");
    free(c);
}

KF_TEST(four_backtick_fence_holds_three)
{
    const char *t = "````c\n/* example:\n```c\nnot the end\n```\n*/\nint x;\n````\n";
    char *c = extract_ok(t, C_LANGS);
    KF_CHECK_STR(c, "/* example:\n```c\nnot the end\n```\n*/\nint x;\n");
    free(c);
}

KF_TEST(tilde_fence_crlf_and_indent)
{
    char *c = extract_ok("~~~c\r\nint x;\r\n~~~\r\n", C_LANGS);
    KF_CHECK_STR(c, "int x;\n");
    free(c);
    c = extract_ok("1. the code:\n   ```c\n   int y;\n     int z;\n   ```\n", C_LANGS);
    KF_CHECK_STR(c, "int y;\n  int z;\n");
    free(c);
}

KF_TEST(closing_fence_glued_to_code)
{
    char *c = extract_ok("```c\nint x;\n}```\n", C_LANGS);
    KF_CHECK_STR(c, "int x;\n}\n");
    free(c);
}

KF_TEST(unterminated_fence_is_truncated)
{
    /* an earlier complete block does not hide that the final version was cut off */
    extract_fails("```c\nint draft;\n```\nFinal:\n```c\nvoid kf_kernel(void) {\n  for (", C_LANGS,
                  KF_ANSWER_E_TRUNCATED, "cut off inside its last ```c block");
    extract_fails("```\nint x;", C_LANGS, KF_ANSWER_E_TRUNCATED, "no closing fence");
    /* a cut-off block of another language does not matter for C */
    char *c = extract_ok("```c\nint x;\n```\n```json\n{\"a\":", C_LANGS);
    KF_CHECK_STR(c, "int x;\n");
    free(c);
}

KF_TEST(empty_answer_and_empty_block)
{
    extract_fails("", C_LANGS, KF_ANSWER_E_EMPTY, "the answer is empty");
    extract_fails("  \n\t\n", C_LANGS, KF_ANSWER_E_EMPTY, "```c block");
    extract_fails(NULL, C_LANGS, KF_ANSWER_E_EMPTY, "empty");
    extract_fails("```c\n   \n```\n", C_LANGS, KF_ANSWER_E_EMPTY_BLOCK, "last ```c block is empty");
}

KF_TEST(no_code_and_wrong_language)
{
    extract_fails("I think you should use tiling.", C_LANGS, KF_ANSWER_E_NO_CODE,
                  "no fenced code block; reply with the complete code in one ```c block");
    extract_fails("inline ```c int x;``` is not a fence", C_LANGS, KF_ANSWER_E_NO_CODE, "no fenced");
    extract_fails("```python\nprint(1)\n```\n```cpp\nint x;\n```\n```python\nx\n```\n", C_LANGS,
                  KF_ANSWER_E_WRONG_LANG, "tagged python, cpp, none is ```c");
}

KF_TEST(any_language_when_langs_null)
{
    char *c = extract_ok("```rust\nfn main() {}\n```\n", NULL);
    KF_CHECK_STR(c, "fn main() {}\n");
    free(c);
}

/* ---- JSON ---- */

static json_object *parse_clean(const char *text)
{
    kf_error err = {0};
    char *clean = kf_answer_clean_json(text, &err);
    KF_CHECK_MSG(clean != NULL, "clean failed: %s", err.msg);
    json_object *o = json_tokener_parse(clean);
    KF_CHECK_MSG(o != NULL, "cleaned text does not parse: %s", clean);
    free(clean);
    return o;
}

KF_TEST(json_trailing_commas_and_comments)
{
    const char *t =
        "\xEF\xBB\xBF{\n"
        "  // the launch plan\n"
        "  \"backend\": \"opencl\", /* inline */\n"
        "  \"url\": \"http://x//y\",\n"
        "  \"launches\": [\n"
        "    {\"kernel\": \"k\", \"global\": [\"N\", 16,], \"local\": [16,],},\n"
        "  ],\n"
        "}\n";
    json_object *o = parse_clean(t), *v, *l, *g;
    KF_CHECK(json_object_object_get_ex(o, "backend", &v));
    KF_CHECK_STR(json_object_get_string(v), "opencl");
    KF_CHECK(json_object_object_get_ex(o, "url", &v));
    KF_CHECK_STR(json_object_get_string(v), "http://x//y");
    KF_CHECK(json_object_object_get_ex(o, "launches", &l));
    KF_CHECK_INT(json_object_array_length(l), 1);
    KF_CHECK(json_object_object_get_ex(json_object_array_get_idx(l, 0), "global", &g));
    KF_CHECK_INT(json_object_array_length(g), 2);
    KF_CHECK_INT(json_object_get_int(json_object_array_get_idx(g, 1)), 16);
    json_object_put(o);
}

KF_TEST(json_raw_newlines_in_strings)
{
    /* a model pasting multi-line source into "text" */
    json_object *o = parse_clean("{\"sources\": [{\"name\": \"k.cl\", \"text\": \"__kernel void k() {\n\tint x = 1; // \\\"hi\\\"\n}\n\"}]}");
    json_object *s, *t;
    KF_CHECK(json_object_object_get_ex(o, "sources", &s));
    KF_CHECK(json_object_object_get_ex(json_object_array_get_idx(s, 0), "text", &t));
    KF_CHECK_STR(json_object_get_string(t), "__kernel void k() {\n\tint x = 1; // \"hi\"\n}\n");
    json_object_put(o);
}

static void json_fails(const char *text, const char *needle)
{
    kf_error err = {0};
    char *r = kf_answer_clean_json(text, &err);
    KF_CHECK(r == NULL);
    free(r);
    KF_CHECK_INT(err.code, KF_ANSWER_E_BAD_JSON);
    KF_CHECK_CONTAINS(err.msg, needle);
    KF_CHECK(strchr(err.msg, '\n') == NULL);
}

KF_TEST(json_errors_are_diagnosed)
{
    json_fails("{\n  \"a\": 1,\n  \"b\": nope\n}", "not valid JSON");
    json_fails("{\n  \"a\": 1,\n  \"b\": nope\n}", "line 3");
    json_fails("{\"a\": [1, 2", "ends before its object is complete");
    json_fails("[1, 2]", "is a JSON array, not an object");
    json_fails("{\"a\": 1} and then prose", "extra text after its object at line 1, column 10");
    json_fails("{\"a\": 1 /* never closed", "unterminated /* comment");
    json_fails("", "empty");
}

KF_TEST(extract_json_from_answers)
{
    kf_error err = {0};
    char *j = kf_answer_extract_json("Kernel:\n```c\nint x;\n```\nPlan:\n```json\n{\"entry\": \"kf_kernel\",}\n```\n", &err);
    KF_CHECK_MSG(j != NULL, "%s", err.msg);
    json_object *o = json_tokener_parse(j), *v;
    KF_CHECK(o && json_object_object_get_ex(o, "entry", &v));
    KF_CHECK_STR(json_object_get_string(v), "kf_kernel");
    json_object_put(o);
    free(j);
    /* a bare object with no fence */
    j = kf_answer_extract_json("  {\"a\": [1,],}\n", &err);
    KF_CHECK_MSG(j != NULL, "%s", err.msg);
    free(j);
    /* a truncated plan */
    KF_CHECK(kf_answer_extract_json("```json\n{\"a\": 1,\n", &err) == NULL);
    KF_CHECK_INT(err.code, KF_ANSWER_E_TRUNCATED);
    /* only C code */
    KF_CHECK(kf_answer_extract_json("```c\nint x;\n```\n", &err) == NULL);
    KF_CHECK_INT(err.code, KF_ANSWER_E_WRONG_LANG);
    KF_CHECK_CONTAINS(err.msg, "none is ```json");
    KF_CHECK(kf_answer_extract_json("no plan at all", &err) == NULL);
    KF_CHECK_INT(err.code, KF_ANSWER_E_NO_CODE);
}

int main(void) { return kf_test_main(); }
