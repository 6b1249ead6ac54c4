// Runs the cell like a notebook: the last expression's repr is printed (as OpenAI's logs
// show it), tracebacks name "<cell>" with source lines and hide this runner's frames, and
// RLIMIT_AS caps memory (soft and hard, so the cell cannot raise it again).
const RUNNER = `
import ast, linecache, resource, sys, traceback
src, limit = sys.argv[1], int(sys.argv[2])
if limit > 0:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
sys.argv = ['<cell>']
linecache.cache['<cell>'] = (len(src), None, src.splitlines(True), '<cell>')
scope = {'__name__': '__main__', '__builtins__': __builtins__}
try:
    tree = ast.parse(src, '<cell>', 'exec')
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, '<cell>', 'exec'), scope)
    if last is not None:
        value = eval(compile(last, '<cell>', 'eval'), scope)
        if value is not None:
            print(repr(value))
except SystemExit:
    raise
except SyntaxError as error:
    traceback.print_exception(type(error), error, None)
    sys.exit(1)
except BaseException as error:
    traceback.print_exception(type(error), error, error.__traceback__.tb_next)
    sys.exit(1)
`;

/** Largest cell passed on the command line (Linux caps one argument at 128 KiB). */
export const MAX_PYTHON_CODE_BYTES = 120 * 1024;

/** The argv that runs `code` with the notebook-style runner under `python`. */
export function pythonCommand(python: string, code: string, memoryLimitMb: number): string[] {
  return [python, '-s', '-B', '-c', RUNNER, code, String(Math.max(0, Math.floor(memoryLimitMb)) * 1024 * 1024)];
}
