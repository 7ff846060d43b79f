"""stubjit quickstart from Python: a 2-D saxpy on numpy arrays, compiled at run time
for the best backend found (STUBJIT_BACKEND=cpu forces one). On the CPU backend the
arrays are used where they lie."""
import numpy as np

import stubjit

rt = stubjit.Runtime()
print(f"backend: {rt.backend} (target {rt.target}, {rt.compiler})")

# What to compute: the kernel's signature and body. stubjit writes the rest.
saxpy = rt.kernel("saxpy", [stubjit.scalar("a", np.float32), stubjit.in_("x", np.float32),
                            stubjit.inout("y", np.float32)], "y = a * x + y;")

rows, cols = 1000, 1500
x = (np.arange(rows * cols) % 1000).astype(np.float32).reshape(rows, cols)
y = np.ones((rows, cols), np.float32)
# Over which indices: the arrays' shape. x and y bind to rank-0 parameters: each index
# sees one element.
summary = saxpy(y.shape, 2.0, x, y)
print(f"plan: {saxpy.plan(y.shape).describe()}")
print(f"compiled this launch: {'yes' if summary.compiled else 'no'}")
wrong = int(np.count_nonzero(y != 2.0 * x + 1.0))
print(f"result check: {'FAILED' if wrong else 'ok'} ({wrong} of {y.size} elements wrong)")
raise SystemExit(1 if wrong else 0)
