#!/usr/bin/env python3
"""Golden for G-Eval's probability-weighted rating (src/metrics/geval.cpp), from deepeval's code.

  /usr/bin/python3 tests/golden/gen/geval.py --deepeval-utils FILE \
      --transcript tests/llm/fixtures/transcripts/llamacpp-3f545bec-geval.jsonl \
      --out tests/golden/geval.json

FILE: deepeval/metrics/g_eval/utils.py of confident-ai/deepeval (commit in DEEPEVAL_COMMIT below).
Only its function calculate_weighted_summed_score is taken from the file (by the ast module) and
run as it is; the module's imports (openai, pydantic, deepeval) are not needed by that function
and are not imported. deepeval's caller (g_eval.py, GEval._a_evaluate / _evaluate) returns the
raw score when the function raises KeyError, AttributeError, TypeError or ValueError (no token
equals the raw score: AttributeError on None); `deepeval_score` below does the same.

Cases: every chat answer with log-probabilities in the transcript (a real llama.cpp server, see
its meta line) and constructed top-logprob lists for the rules where probity and deepeval
differ. Each case holds the generated tokens as a chat answer gives them, the scale, deepeval's
score (raw score = the rating probity locates), probity's score from `probity_score` (an
independent Python statement of the documented rule) and whether the two agree.
"""
import argparse
import ast
import json
import math
import types
from typing import Dict, Union

DEEPEVAL_COMMIT = "a2e0d4cfd3118352d321c1c84bdeba17d4a201bc"
MIN_PROB = 0.01


def load_deepeval(path):
    source = open(path, encoding="utf-8").read()
    tree = ast.parse(source)
    fn = next(n for n in tree.body
              if isinstance(n, ast.FunctionDef) and n.name == "calculate_weighted_summed_score")
    namespace = {"math": math, "Dict": Dict, "Union": Union, "ChatCompletion": object}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), path, "exec"), namespace)
    return namespace["calculate_weighted_summed_score"], ast.get_source_segment(source, fn)


def as_response(tokens):
    """An object shaped as openai's ChatCompletion, enough for the function."""
    content = [types.SimpleNamespace(
        token=t["token"], logprob=t["logprob"],
        top_logprobs=[types.SimpleNamespace(token=a["token"], logprob=a["logprob"])
                      for a in t["top_logprobs"]]) for t in tokens]
    choice = types.SimpleNamespace(logprobs=types.SimpleNamespace(content=content))
    return types.SimpleNamespace(choices=[choice])


def deepeval_score(fn, raw_score, tokens):
    try:
        return fn(raw_score, as_response(tokens))
    except (KeyError, AttributeError, TypeError, ValueError):
        return raw_score


# ---- probity's rule, as docs/metrics.md states it ----------------------------------------------
WRAPPERS = " \t\n\r\f\v\"'`*"


def scale_value(token, lo, hi):
    s = token.strip(WRAPPERS)
    if not s or len(s) > 9 or not all("0" <= c <= "9" for c in s):
        return None
    v = int(s)
    return v if lo <= v <= hi else None


def find_rating(tokens, lo, hi):
    for i, t in enumerate(tokens):
        v = scale_value(t["token"], lo, hi)
        if v is None:
            continue
        text = t["token"]
        if i > 0 and text[:1].isdigit() and tokens[i - 1]["token"][-1:].isdigit():
            continue
        if i + 1 < len(tokens) and text[-1:].isdigit() and tokens[i + 1]["token"][:1].isdigit():
            continue
        return i, v
    return None


def probity_score(tokens, lo, hi):
    found = find_rating(tokens, lo, hi)
    if found is None:
        return None, None, None
    i, rating = found
    by_value, mass = {}, 0.0
    for a in tokens[i]["top_logprobs"]:
        if a["logprob"] < math.log(MIN_PROB):
            continue
        v = scale_value(a["token"], lo, hi)
        if v is None:
            continue
        p = math.exp(a["logprob"])
        by_value[v] = by_value.get(v, 0.0) + p
        mass += p
    if mass == 0:
        return float(rating), rating, 0.0
    return sum(v * p for v, p in by_value.items()) / mass, rating, mass


def tok(token, logprob, top):
    return {"token": token, "logprob": logprob,
            "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}


def constructed():
    ln = math.log
    return [
        ("spread over 1-5", 1, 5, [tok("4", ln(0.5), [("4", ln(0.5)), ("3", ln(0.3)),
                                                       ("5", ln(0.15)), ("2", ln(0.04)),
                                                       ("1", ln(0.01))])]),
        ("below 1% left out", 1, 5, [tok("3", ln(0.6), [("3", ln(0.6)), ("2", ln(0.3)),
                                                         ("5", ln(0.0099)), ("1", ln(0.005))])]),
        ("exactly 1% kept", 1, 5, [tok("2", ln(0.7), [("2", ln(0.7)), ("1", ln(0.01)),
                                                       ("The", ln(0.2))])]),
        ("words among the alternatives", 1, 5, [tok("5", -0.2, [("5", -0.2), ("Five", -2.0),
                                                                ("4", -2.5), ("\n", -3.0)])]),
        ("one alternative", 1, 5, [tok("1", -0.01, [("1", -0.01)])]),
        ("no alternative reaches 1%", 1, 5, [tok("3", -6.0, [("The", -0.1), ("A", -2.5),
                                                              ("3", -6.0)])]),
        ("scale 0-9", 0, 9, [tok("7", -0.6, [("7", -0.6), ("8", -1.4), ("6", -2.3),
                                              ("9", -3.5), ("0", -4.0)])]),
        ("scale 1-3", 1, 3, [tok("2", -0.4, [("2", -0.4), ("3", -1.3), ("1", -3.2)])]),
        ("leading space tokens: deepeval drops them", 1, 5,
         [tok(" 4", -0.4, [(" 4", -0.4), (" 3", -1.8), ("4", -3.0), (" 5", -2.6)])]),
        ("out-of-scale digits: deepeval counts them", 1, 5,
         [tok("4", -0.4, [("4", -0.4), ("7", -1.5), ("0", -2.5), ("3", -2.0)])]),
        ("rating after a quote and words", 1, 5,
         [tok("Rating", -0.2, [("Rating", -0.2)]), tok(":", -0.1, [(":", -0.1)]),
          tok(" ", -0.3, [(" ", -0.3)]), tok("\"", -0.5, [("\"", -0.5)]),
          tok("3", -0.7, [("3", -0.7), ("4", -0.9), ("2", -2.6)]), tok("\"", -0.1, [])]),
        ("ten split into digits is not a rating", 1, 5,
         [tok("1", -0.2, [("1", -0.2), ("2", -2.0)]), tok("0", -0.1, [("0", -0.1)]),
          tok(" or", -1.0, [(" or", -1.0)]), tok(" ", -0.5, []),
          tok("4", -0.6, [("4", -0.6), ("5", -1.1)])]),
        ("no rating at all", 1, 5, [tok("Good", -0.2, [("Good", -0.2), ("4", -2.0)])]),
    ]


def recorded(path):
    """(name, lo, hi, tokens) of every chat answer with log-probabilities in a transcript."""
    out, meta = [], None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        e = json.loads(line)
        if "meta" in e:
            meta = e["meta"]
            continue
        if not e.get("path", "").endswith("/chat/completions") or e.get("status") != 200:
            continue
        req, resp = e.get("request") or {}, e.get("response") or {}
        lp = (resp.get("choices") or [{}])[0].get("logprobs")
        if not req.get("logprobs") or not lp or not lp.get("content"):
            continue
        tokens = [tok(t["token"], t["logprob"], [(a["token"], a["logprob"])
                                                 for a in t.get("top_logprobs", [])])
                  for t in lp["content"]]
        out.append((f"recorded: transcript line {n}", 1, 5, tokens))
    return out, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deepeval-utils", required=True)
    ap.add_argument("--transcript", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    fn, fn_source = load_deepeval(args.deepeval_utils)
    rec, meta = recorded(args.transcript)
    cases = []
    for name, lo, hi, tokens in constructed() + rec:
        score, rating, mass = probity_score(tokens, lo, hi)
        raw = rating
        de = deepeval_score(fn, raw, tokens) if raw is not None else None
        cases.append({"name": name, "scale": [lo, hi], "tokens": tokens,
                      "rating": rating, "probity": score, "mass": mass,
                      "deepeval": de,
                      "same": de is not None and score is not None and abs(de - score) <= 1e-12})
    golden = {
        "reference": {"repository": "confident-ai/deepeval", "commit": DEEPEVAL_COMMIT,
                      "path": "deepeval/metrics/g_eval/utils.py",
                      "function": "calculate_weighted_summed_score",
                      "caller_fallback": "g_eval.py: the raw score on KeyError, AttributeError, "
                                         "TypeError, ValueError",
                      "function_sha256": __import__("hashlib").sha256(
                          fn_source.encode()).hexdigest()},
        "min_probability": MIN_PROB,
        "transcript_meta": meta,
        "cases": cases,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(golden, f, indent=1, ensure_ascii=False)
        f.write("\n")
    same = sum(c["same"] for c in cases)
    print(f"{len(cases)} cases, {same} where probity and deepeval agree")


if __name__ == "__main__":
    main()
