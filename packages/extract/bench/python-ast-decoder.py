# The baseline decoder of the per-output benchmark: BFCL-style decoding of Python-call
# output with the standard `ast` module (as vLLM's pythonic parser and BFCL's ast_parse do),
# timed in this process over the same outputs the TypeScript side reads.
# usage: python3 python-ast-decoder.py OUTPUTS.json MIN_SECONDS  ->  prints {"outputsPerSec": n, "calls": k}
import ast
import json
import sys
import time


def name_of(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return name_of(node.value) + "." + node.attr
    raise ValueError("not a name")


def decode(text):
    s = text.strip().strip("`").strip()
    if not s.startswith("["):
        s = "[" + s
    if not s.endswith("]"):
        s = s + "]"
    try:
        tree = ast.parse(s, mode="eval")
    except Exception:
        return []
    body = tree.body
    items = body.elts if isinstance(body, ast.List) else [body]
    calls = []
    for item in items:
        if not isinstance(item, ast.Call):
            continue
        try:
            name = name_of(item.func)
        except ValueError:
            continue
        args = {}
        for keyword in item.keywords:
            try:
                args[keyword.arg] = ast.literal_eval(keyword.value)
            except Exception:
                args[keyword.arg] = ast.unparse(keyword.value)
        calls.append({"name": name, "arguments": args})
    return calls


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        outputs = json.load(f)
    min_seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    calls = sum(len(decode(o)) for o in outputs)
    passes = 0
    start = time.process_time()
    while True:
        for o in outputs:
            decode(o)
        passes += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            break
    print(json.dumps({"outputsPerSec": passes * len(outputs) / elapsed, "calls": calls}))


main()
