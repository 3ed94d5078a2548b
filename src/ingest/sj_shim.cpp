// sj_shim.cpp — thin extern "C" shim around simdjson On-Demand (see
// sj_shim.h).  No exceptions: every call uses simdjson's error codes.  This
// is the only C++ in gpudiag; it exists because it more than doubles the
// end-to-end speed of `analyze` (docs/PERFORMANCE.md).
#include "ingest/sj_shim.h"

#include <new>
#include <string_view>

#include <cstring>
#include <simdjson.h>

using namespace simdjson;

struct gd_sj {
    ondemand::parser parser;
    ondemand::document doc; // the window's document (sep_after reads its position)
};

extern "C" void gd_oom_exit(const char *where); // util.h: prints, _exit(5)

static void gd_sj_out_of_memory()
{
    gd_oom_exit("simdjson");
}

extern "C" gd_sj *gd_sj_new(void)
{
    // simdjson allocates with a throwing new; built without exceptions, a
    // failure would end in std::terminate (SIGABRT): say so and exit 5
    // instead (tests/fault).  A handler the host program set is kept.
    if (!std::get_new_handler())
        std::set_new_handler(gd_sj_out_of_memory);
    return new (std::nothrow) gd_sj();
}

extern "C" void gd_sj_free(gd_sj *sj)
{
    delete sj;
}

static std::string_view gd_trim(std::string_view s)
{
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// The string whose raw bytes start at raw (just after its opening quote, in
// a document stage 1 validated: a closing quote follows), when it holds no
// escape: then its bytes are its value, and unescaping (a copy through
// simdjson's string buffer) is skipped.  Kineto's keys and almost all its
// values have none; 4-5 % of the parse threads' time went to unescaping them
// (docs/PERFORMANCE.md, step 9).  false: the string has a backslash, *out is
// not set, unescape it.
static bool raw_plain(const char *raw, std::string_view *out)
{
    size_t n = 0;
    for (; raw[n] != '"'; n++)
        if (raw[n] == '\\')
            return false;
    *out = std::string_view(raw, n);
    return true;
}

// Separators.  simdjson's On-Demand ends an object silently when a field's value is
// followed by something other than ',' or '}' ("name": "P": 2}}: the walk resumes
// after the extra brace with no error), where yajl rejects the event (fuzz_kineto:
// one thread and --jobs 2 disagreed; both now agree with yajl).  So each value must
// be followed by ',' or its container's `close`: a scalar by the byte after its raw
// token (the token runs up to the next structural byte, blanks included), a
// container after its walk by the parser's position (sep_after).
static thread_local ondemand::document *sj_doc; // the document gd_sj_events walks

static inline bool sep_ok(std::string_view raw, char close)
{
    char nx = raw.data()[raw.size()];
    return nx == ',' || nx == close;
}

static bool sep_after(char close)
{
    const char *p = nullptr;
    if (sj_doc->current_location().get(p) || p == nullptr)
        return false;
    return *p == ',' || *p == close;
}

// Replay the scalar value of a wanted key.  Returns false on a parse error.
static bool check_skipped(ondemand::value v, const gd_sj_cb *cb, void *ctx, int depth, char close);

static bool scalar(ondemand::value &v, const gd_sj_cb *cb, void *ctx, bool *cancel, char close)
{
    ondemand::json_type t;
    if (v.type().get(t))
        return false;
    switch (t) {
    case ondemand::json_type::string: {
        std::string_view raw = v.raw_json_token();
        if (!sep_ok(raw, close))
            return false;
        std::string_view s = gd_trim(raw);
        if (s.size() < 2 || s.back() != '"' || !raw_plain(s.data() + 1, &s)) {
            if (v.get_string().get(s))
                return false;
        }
        int rc = cb->string(ctx, s.data(), s.size());
        if (rc < 0)
            return false;
        if (rc == 0)
            *cancel = true;
        return true;
    }
    case ondemand::json_type::number: {
        // On-Demand does not validate a number it has not parsed: the callback
        // checks the raw token against the JSON grammar.
        std::string_view raw = v.raw_json_token();
        if (!sep_ok(raw, close))
            return false;
        std::string_view s = gd_trim(raw);
        int rc = cb->number(ctx, s.data(), s.size());
        if (rc < 0)
            return false;
        if (rc == 0)
            *cancel = true;
        return true;
    }
    default:
        // bool, null, containers: not wanted as values, but checked as a skipped value is
        // (On-Demand types 'fmha5' as a boolean by its first byte and would let it through;
        // yajl rejects the event: fuzz_kineto's 2-thread check found a `"ts":fmha5` read as
        // an event without a time in one window and as malformed in another)
        return check_skipped(v, cb, ctx, 0, close);
    }
}

// Walk a value gpudiag does not use, checking what On-Demand would skip
// unchecked: numbers against the JSON grammar, true/false/null spelled out,
// containers element by element.  Strings are left to stage 1.  Returns false
// when the value is not valid JSON, so both readers drop the same events.
static bool check_skipped(ondemand::value v, const gd_sj_cb *cb, void *ctx, int depth, char close)
{
    ondemand::json_type t;
    if (v.type().get(t))
        return false;
    switch (t) {
    case ondemand::json_type::number: {
        std::string_view raw = v.raw_json_token();
        std::string_view s = gd_trim(raw);
        return sep_ok(raw, close) && cb->number(ctx, s.data(), s.size()) >= 0;
    }
    case ondemand::json_type::boolean: {
        bool b;
        return sep_ok(v.raw_json_token(), close) && !v.get_bool().get(b);
    }
    case ondemand::json_type::null: {
        bool n;
        return sep_ok(v.raw_json_token(), close) && !v.is_null().get(n) && n;
    }
    case ondemand::json_type::array: {
        if (depth > 64)
            return false;
        ondemand::array arr;
        if (v.get_array().get(arr))
            return false;
        for (auto e : arr) {
            ondemand::value ev;
            if (e.get(ev) || !check_skipped(ev, cb, ctx, depth + 1, ']'))
                return false;
        }
        return sep_after(close);
    }
    case ondemand::json_type::object: {
        if (depth > 64)
            return false;
        ondemand::object o;
        if (v.get_object().get(o))
            return false;
        for (auto f : o) {
            ondemand::value fv;
            if (f.value().get(fv) || !check_skipped(fv, cb, ctx, depth + 1, '}'))
                return false;
        }
        return sep_after(close);
    }
    default:
        return sep_ok(v.raw_json_token(), close); // strings: quotes and control bytes were checked by stage 1
    }
}

// Replay an array value of a wanted key: start_array, its elements (scalars,
// nested arrays up to 3 deep; anything else checked and skipped), end_array.
static bool replay_array(ondemand::value &v, const gd_sj_cb *cb, void *ctx, int depth, bool *cancel, char close)
{
    ondemand::array arr;
    if (v.get_array().get(arr))
        return false;
    if (!cb->start_array(ctx)) {
        *cancel = true;
        return true;
    }
    for (auto e : arr) {
        ondemand::value ev;
        if (e.get(ev))
            return false;
        ondemand::json_type t;
        if (ev.type().get(t))
            return false;
        if (t == ondemand::json_type::array && depth < 3) {
            if (!replay_array(ev, cb, ctx, depth + 1, cancel, ']'))
                return false;
        } else if (t == ondemand::json_type::string || t == ondemand::json_type::number) {
            if (!scalar(ev, cb, ctx, cancel, ']'))
                return false;
        } else if (!check_skipped(ev, cb, ctx, depth, ']')) {
            return false;
        }
        if (*cancel)
            return true;
    }
    if (!cb->end_array(ctx))
        *cancel = true;
    return *cancel || sep_after(close);
}

// cppcheck-suppress constParameter ; iterating an On-Demand object advances it: it cannot be const
static bool object(ondemand::object &obj, const gd_sj_cb *cb, void *ctx, int depth, bool *cancel)
{
    for (auto field : obj) {
        std::string_view k;
        const char *kraw;
        if ((field.key().raw().get(kraw) || !raw_plain(kraw, &k)) && field.unescaped_key().get(k))
            return false;
        if (!cb->key(ctx, k.data(), k.size())) {
            // Unwanted: On-Demand skips it without validating, so check what
            // is cheap to check (a scalar's first byte, a number's grammar) to
            // reject the same broken events yajl rejects (bare N/A, 1Y0).
            ondemand::value v;
            if (field.value().get(v) || !check_skipped(v, cb, ctx, depth, '}'))
                return false;
            continue;
        }
        ondemand::value v;
        if (field.value().get(v))
            return false;
        ondemand::json_type t;
        if (v.type().get(t))
            return false;
        if (t == ondemand::json_type::object && depth == 0) {
            ondemand::object sub;
            if (v.get_object().get(sub))
                return false;
            if (!cb->start_map(ctx)) {
                *cancel = true;
                return true;
            }
            if (!object(sub, cb, ctx, depth + 1, cancel))
                return false;
            if (*cancel)
                return true;
            if (!sep_after('}'))
                return false;
            if (!cb->end_map(ctx)) {
                *cancel = true;
                return true;
            }
        } else if (t == ondemand::json_type::array && depth == 1 && cb->start_array) {
            if (!replay_array(v, cb, ctx, 1, cancel, '}'))
                return false;
        } else if (!scalar(v, cb, ctx, cancel, '}')) {
            return false;
        }
        if (*cancel)
            return true;
    }
    return true;
}

extern "C" int gd_sj_events(gd_sj *sj, unsigned char *win, size_t len, const gd_sj_cb *cb, void *ctx,
                            size_t *consumed)
{
    *consumed = 0;
    unsigned char saved_before = win[-1];
    unsigned char saved_after[GD_SJ_PADDING];
    std::memcpy(saved_after, win + len, GD_SJ_PADDING);
    win[-1] = '[';
    win[len] = ']';
    // Blank the padding after the ']'.  A window usually ends inside an event
    // (unbalanced brackets), and simdjson 3.0.1's On-Demand then reads bytes
    // past the document: stale window bytes there (an unclosed '"', a ']')
    // made it reject the window's FIRST event, which sent the rest of a 5 GB
    // trace to the slower yajl path (its first window ending so, 1.05 GB in),
    // and tripped an assertion in a debug build of simdjson.
    std::memset(win + len + 1, ' ', GD_SJ_PADDING - 1);
    const char *start = reinterpret_cast<const char *>(win);
    int result = GD_SJ_MORE;
    bool cancel = false;

    ondemand::document &doc = sj->doc;
    sj_doc = &doc;
    if (!sj->parser.iterate(reinterpret_cast<const char *>(win - 1), len + 2, len + 2 + GD_SJ_PADDING).get(doc)) {
        ondemand::array arr;
        if (!doc.get_array().get(arr)) {
            // Position of the element about to be read; advanced after each complete one.
            for (auto elem : arr) {
                const char *loc = nullptr;
                ondemand::value v;
                if (elem.get(v))
                    break;
                if (v.current_location().get(loc))
                    break;
                ondemand::json_type t;
                if (v.type().get(t))
                    break;
                if (t != ondemand::json_type::object)
                    break; // not an event: broken input, which the yajl path skips and counts
                ondemand::object obj;
                if (v.get_object().get(obj))
                    break;
                if (!cb->start_map(ctx)) {
                    cancel = true;
                    break;
                }
                bool ok = object(obj, cb, ctx, 0, &cancel);
                if (cancel)
                    break;
                if (!ok) {
                    cb->reset(ctx);
                    break;
                }
                // The element is complete; the next non-blank byte must be the input's own
                // ',' or ']'.  simdjson's On-Demand does not check that ("{..} {..}" iterates
                // as two elements), yajl does: so when the separator is missing, or not in
                // this window (the synthetic ']' at its end: a missing comma, or the array's
                // real end still unread), the event is not committed here and consumed stays
                // at its start.  The caller then hands it to the next window or to yajl,
                // which commits it and reports the missing comma at the next event, as the
                // serial yajl reader does, wherever the windows end (fuzz_kineto found the
                // parallel reader accepting a missing comma at a window boundary that the
                // serial reader, its window cut elsewhere, rejected).
                const char *after = nullptr;
                if (doc.current_location().get(after) || after == nullptr ||
                    static_cast<size_t>(after - start) >= len || (*after != ',' && *after != ']')) {
                    cb->reset(ctx);
                    break;
                }
                if (!cb->end_map(ctx)) {
                    cancel = true;
                    break;
                }
                // consumed reaches the next non-blank byte
                *consumed = static_cast<size_t>(after - start);
            }
        }
    }
    // Step over blanks and the comma after the last complete event; a ']' there is
    // the real end of traceEvents.
    if (!cancel) {
        size_t i = *consumed;
        int comma = 0; // at most one: a second is broken input, left to the serial reader
        while (i < len && (win[i] == ' ' || win[i] == '\n' || win[i] == '\r' || win[i] == '\t' ||
                           (win[i] == ',' && !comma))) {
            comma |= win[i] == ',';
            i++;
        }
        if (i < len && win[i] == ']') {
            *consumed = i + 1;
            result = GD_SJ_END;
        } else {
            *consumed = i;
        }
    }
    win[-1] = saved_before;
    std::memcpy(win + len, saved_after, GD_SJ_PADDING);
    return cancel ? GD_SJ_CANCEL : result;
}
