"""The Python package against numpy: every result is compared with numpy's (or plain
Python's) own computation, every error class is raised where the C++ runtime raises it,
with its details, and a refused launch leaves the arrays as they were."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import stubjit

f32, f64 = np.float32, np.float64


@pytest.fixture(scope="module")
def rt():
    return stubjit.Runtime(backend="cpu", disk_cache=False)


@pytest.fixture(scope="module")
def saxpy(rt):
    return rt.kernel("saxpy", [stubjit.scalar("a", f32), stubjit.in_("x", f32),
                               stubjit.inout("y", f32)], "y = a * x + y;")


def test_saxpy_in_place_on_numpy_arrays(rt, saxpy):
    x = np.arange(6 * 7, dtype=f32).reshape(6, 7)
    y = np.linspace(-1, 1, 42, dtype=f32).reshape(6, 7)
    want = 2.5 * x + y
    summary = saxpy(y.shape, 2.5, x, y)
    np.testing.assert_allclose(y, want, rtol=1e-6)
    assert summary.compiled
    assert saxpy(y.shape, 0.0, x, y).compiled is False  # the stub was in memory
    np.testing.assert_allclose(y, want, rtol=1e-6)       # a = 0: unchanged


def test_rank5_strided_view_with_a_negative_stride(rt):
    base = np.arange(4 * 3 * 5 * 2 * 6, dtype=f64).reshape(4, 3, 5, 2, 6)
    original = base.copy()
    view = base[::2, :, 1::2, ::-1, 1:5]
    assert not view.flags.c_contiguous and view.strides[3] < 0
    affine = rt.kernel("affine", [stubjit.inout("v", f64)], "v = 3.0 * v + 1.0;")
    affine(view.shape, view)
    want = original.copy()
    want[::2, :, 1::2, ::-1, 1:5] = 3.0 * original[::2, :, 1::2, ::-1, 1:5] + 1.0
    np.testing.assert_array_equal(base, want)  # the view's elements, and no other


def test_fortran_order_array_and_a_fortran_loop_nest(rt):
    y = np.asfortranarray(np.full((5, 4), -1.0))
    assert y.flags.f_contiguous and not y.flags.c_contiguous
    mark = rt.kernel("mark", [stubjit.index("p"), stubjit.inout("y", f64)],
                     "y = 100.0 * double(p[0]) + double(p[1]);")
    # do j = 3, 0, -1; do i = 4, 0, -2 (0-based), innermost first in Fortran order.
    domain = stubjit.Domain.loops([(3, 0, -1), (4, 0, -2)], order="F")
    assert domain.rank == 2 and domain.size == 4 * 3
    mark(domain, y)
    want = np.full((5, 4), -1.0)
    for j in range(3, -1, -1):
        for i in range(4, -1, -2):
            want[i, j] = 100.0 * i + j
    np.testing.assert_array_equal(y, want)


def test_reduce_returns_the_sum_to_python(rt):
    x = np.random.default_rng(7).random((9, 11))
    total = rt.kernel("total", [stubjit.in_("x", f64), stubjit.result("s", f64, "sum")],
                      "s = x;")
    value = total.reduce(x.shape, x)
    assert isinstance(value, np.float64)
    assert value == pytest.approx(float(np.sum(x)), rel=1e-12)


def test_allocated_fields_copy_and_launch(rt, saxpy):
    x = rt.allocate((3, 4), f32)
    y = rt.allocate((3, 4), f32, order="F")
    assert y.strides == (1, 3)
    x.copy_from(np.arange(12, dtype=f32).reshape(3, 4))
    y.copy_from(np.ones((3, 4), f32))
    saxpy((3, 4), 2.0, x, y)
    np.testing.assert_array_equal(y.to_numpy(), 2 * np.arange(12, dtype=f32).reshape(3, 4) + 1)


def test_wrapped_fields_and_their_views_keep_the_array_alive(rt, saxpy):
    import gc
    import weakref

    class Owned(np.ndarray):  # numpy arrays take no weak references; a subclass does
        pass

    array = np.zeros(8, f32).view(Owned)
    alive = weakref.ref(array)
    y = rt.wrap(array)
    view = y.section(0, 7, 0, -1)  # reversed
    del array, y
    gc.collect()
    assert alive() is not None  # the view holds the field, the field the array
    saxpy(8, 1.0, np.arange(8, dtype=f32), view)
    np.testing.assert_array_equal(alive(), np.arange(8, dtype=f32)[::-1])
    del view
    gc.collect()
    assert alive() is None  # and lets it go


def test_complex_arrays_and_byte_order(rt):
    scale = rt.kernel("scale", [stubjit.scalar("s", np.complex64), stubjit.inout("z", np.complex64)],
                      "z = z * s;")
    z = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex64)
    want = z * np.complex64(2 - 1j)
    scale(z.shape, 2 - 1j, z)
    np.testing.assert_allclose(z, want, rtol=1e-6)
    big_endian = np.arange(4, dtype=">f4")
    with pytest.raises(stubjit.FieldError):
        rt.wrap(big_endian)


# --- errors: each class, its details, and that nothing ran --------------------------


def test_domain_error_names_the_dimension():
    with pytest.raises(stubjit.DomainError) as error:
        stubjit.Domain([4, (0, 3, 0)])
    assert error.value.dimension == 1


def test_signature_error():
    with pytest.raises(stubjit.SignatureError):
        stubjit.Runtime(backend="cpu", disk_cache=False).kernel(
            "bad name", [stubjit.in_("x", f32)], "x;")


def test_argument_errors_name_the_parameter_and_change_nothing(rt, saxpy):
    x = np.ones(5, f32)
    y = np.arange(5, dtype=f32)
    before = y.copy()
    with pytest.raises(stubjit.ArgumentError) as error:
        saxpy(5, x, y)  # two arguments for three
    assert error.value.parameter == ""
    with pytest.raises(stubjit.ArgumentError) as error:
        saxpy(5, 1.0, x.astype(f64), y)  # a double array for a float parameter
    assert error.value.parameter == "x"
    for wrong in ("two", True):
        with pytest.raises(stubjit.ArgumentError) as error:
            saxpy(5, wrong, x, y)
        assert error.value.parameter == "a"
    with pytest.raises(stubjit.ArgumentError) as error:
        saxpy(5, 1.0, 3.0, y)  # a number for an array parameter
    assert error.value.parameter == "x"
    read_only = np.arange(5, dtype=f32)
    read_only.flags.writeable = False
    with pytest.raises(stubjit.ArgumentError) as error:
        saxpy(5, 1.0, x, read_only)  # a read-only array for a read-write parameter
    assert error.value.parameter == "y"
    np.testing.assert_array_equal(y, before)


def test_integer_parameters_refuse_floats_and_values_out_of_range(rt):
    fill = rt.kernel("fill", [stubjit.scalar("n", np.int32), stubjit.inout("y", np.int32)],
                     "y = n;")
    y = np.zeros(3, np.int32)
    for wrong in (1.5, 2**31, -2**31 - 1, True):
        with pytest.raises(stubjit.ArgumentError) as error:
            fill(3, wrong, y)
        assert error.value.parameter == "n"
    np.testing.assert_array_equal(y, 0)
    fill(3, np.int64(-7), y)
    np.testing.assert_array_equal(y, -7)


def test_alias_error_names_both_parameters(rt, saxpy):
    y = np.arange(4, dtype=f32)
    with pytest.raises(stubjit.AliasError) as error:
        saxpy(4, 1.0, y, y)
    assert isinstance(error.value, stubjit.ArgumentError)
    assert {error.value.parameter, error.value.other_parameter} == {"x", "y"}
    np.testing.assert_array_equal(y, np.arange(4, dtype=f32))


def test_plan_error_names_the_limit(rt):
    touch = rt.kernel("touch", [stubjit.inout("y", f32)], "y = y + 1.0f;")
    y = np.zeros((2, 2, 2, 2), f32)
    with pytest.raises(stubjit.PlanError) as error:
        touch(y.shape, y, mode="direct")  # direct covers rank 3 at most
    assert error.value.limit
    np.testing.assert_array_equal(y, 0)


def test_compile_error_carries_the_log_in_the_bodys_lines(rt):
    broken = rt.kernel("broken", [stubjit.inout("y", f32)], "y = 1;\ny = = 2;")
    y = np.zeros(3, f32)
    with pytest.raises(stubjit.CompileError) as error:
        broken(3, y)
    assert error.value.kernel == "broken"
    assert "broken.body:2" in error.value.log
    assert "y = = 2;" in error.value.source
    np.testing.assert_array_equal(y, 0)


def test_backend_error():
    with pytest.raises(stubjit.BackendError):
        stubjit.Runtime(backend="nonexistent")


def test_device_arrays_are_refused_on_the_cpu(rt, saxpy):
    class DeviceArray:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0, False),
                                    "version": 3}

    with pytest.raises(stubjit.ArgumentError):
        saxpy(4, 1.0, DeviceArray(), np.zeros(4, f32))


def test_field_error(rt):
    field = rt.allocate((4,), f32)
    with pytest.raises(stubjit.FieldError):
        field.copy_from(np.zeros(5, f32))
    with pytest.raises(stubjit.FieldError):
        field.copy_from(np.zeros(4, f64))


def test_error_classes_form_the_cpp_hierarchy():
    # LaunchError is raised below, by the fake CUDA driver.
    assert issubclass(stubjit.LaunchError, stubjit.BackendError)
    assert issubclass(stubjit.AliasError, stubjit.ArgumentError)
    for name in ("DomainError", "SignatureError", "ArgumentError", "AliasError", "PlanError",
                 "CompileError", "BackendError", "LaunchError", "FieldError"):
        assert issubclass(getattr(stubjit, name), stubjit.Error)


# --- the disk cache: a second process compiles nothing --------------------------------


def test_a_second_process_finds_the_stub_on_disk(tmp_path):
    program = textwrap.dedent("""
        import json, numpy as np, stubjit
        rt = stubjit.Runtime(backend="cpu")
        k = rt.kernel("cached", [stubjit.inout("y", np.float64)], "y = y * 2.0 + 1.0;")
        y = np.arange(10.0)
        k(y.shape, y)
        assert (y == np.arange(10.0) * 2.0 + 1.0).all()
        print(json.dumps(rt.counters()))
    """)
    env = dict(os.environ, STUBJIT_CACHE="on", STUBJIT_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                           text=True, check=True) for _ in range(2)]
    import json
    first, second = (json.loads(run.stdout.strip().splitlines()[-1]) for run in runs)
    assert first["compiles"] == 1 and first["disk_writes"] == 1
    assert second["compiles"] == 0 and second["disk_hits"] == 1


def test_a_filled_cache_serves_as_a_read_only_layer(tmp_path, monkeypatch):
    monkeypatch.setenv("STUBJIT_CACHE", "on")
    monkeypatch.delenv("STUBJIT_CACHE_LAYERS", raising=False)

    def run(**options):
        rt = stubjit.Runtime(backend="cpu", **options)
        k = rt.kernel("layered", [stubjit.inout("y", np.float64)], "y = y * 3.0 - 1.0;")
        y = np.arange(6.0)
        k(y.shape, y)
        assert (y == np.arange(6.0) * 3.0 - 1.0).all()
        return rt.counters()

    filled = run(cache_dir=str(tmp_path / "layer"))
    assert filled["compiles"] == 1 and filled["layer_hits"] == 0
    layered = run(cache_dir=str(tmp_path / "root"), cache_layers=[str(tmp_path / "layer")])
    assert layered["compiles"] == 0 and layered["disk_hits"] == 1 and layered["layer_hits"] == 1
    alone = run(cache_dir=str(tmp_path / "other"))
    assert alone["compiles"] == 1 and alone["layer_hits"] == 0


def test_everything_public_has_a_docstring():
    missing = [name for name in stubjit.__all__ if not (getattr(stubjit, name).__doc__ or "").strip()]
    assert not missing
    for cls in (stubjit.Runtime, stubjit.Kernel, stubjit.Field):
        for name, member in vars(cls).items():
            if not name.startswith("_") and callable(member):
                assert (member.__doc__ or "").strip(), f"{cls.__name__}.{name}"


# --- a CUDA runtime over the test tree's fake driver (device memory is host memory, a
# launch only counts): device arrays through __cuda_array_interface__, and LaunchError --


@pytest.fixture
def fake_cuda(monkeypatch):
    import ctypes
    path = os.environ.get("STUBJIT_TEST_FAKE_CUDA_DRIVER", "")
    if not os.path.exists(path):
        pytest.skip("this build has no fake CUDA driver (tests/cuda)")
    monkeypatch.setenv("STUBJIT_CUDA_DRIVER_PATH", path)
    monkeypatch.delenv("STUBJIT_FAKE_CUDA_FAIL_LAUNCH", raising=False)
    try:
        # A grid of at most 4 groups a dimension: a domain of 2048 points takes two.
        rt = stubjit.Runtime(backend="cuda", disk_cache=False, fuse_dimensions=False,
                             limits={"max_grid": (4, 4, 4)})
    except stubjit.BackendError as error:  # no NVRTC on this machine
        pytest.skip(f"no CUDA toolchain: {error}")
    driver = ctypes.CDLL(path)
    driver.stubjit_fake_cuda_calls.restype = ctypes.c_long
    return rt, lambda: driver.stubjit_fake_cuda_calls(b"cuLaunchKernel")


class DeviceArray:
    """What CuPy, Numba or PyTorch arrays show: __cuda_array_interface__ (version 3)."""

    def __init__(self, memory, shape, typestr, strides=None, read_only=False):
        self.memory = memory  # the fake driver's device memory is host memory
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (memory.ctypes.data, read_only), "version": 3}


def test_device_arrays_are_wrapped_where_they_lie_on_cuda(fake_cuda):
    rt, launches = fake_cuda
    memory = np.zeros(4 * 6, np.float32)
    field = rt.wrap(DeviceArray(memory, (4, 6), "<f4"))
    assert field.shape == (4, 6) and field.strides == (6, 1) and field.writable
    assert field.data_ptr == memory.ctypes.data
    columns = rt.wrap(DeviceArray(memory, (6, 4), "<f4", strides=(4, 24)))
    assert columns.strides == (1, 6)
    read_only = rt.wrap(DeviceArray(memory, (4, 6), "<f4", read_only=True))
    assert not read_only.writable

    fill = rt.kernel("fill", [stubjit.inout("y", f32)], "y = 1.0f;")
    before = launches()
    fill((4, 6), DeviceArray(memory, (4, 6), "<f4"))
    assert launches() == before + 1
    with pytest.raises(stubjit.ArgumentError) as error:
        fill((4, 6), DeviceArray(memory, (4, 6), "<f4", read_only=True))
    assert error.value.parameter == "y"
    with pytest.raises(stubjit.ArgumentError):
        fill((4, 6), np.zeros((4, 6), f32))  # host memory on a CUDA runtime
    with pytest.raises(stubjit.FieldError):
        rt.wrap(DeviceArray(memory, (4, 6), "<f4", strides=(24, 2)))  # half an element
    assert launches() == before + 1


def test_launch_error_says_how_many_dispatches_ran(fake_cuda, monkeypatch):
    rt, launches = fake_cuda
    count = rt.kernel("count", [stubjit.inout("visits", np.int32)], "visits += 1;")
    visits = rt.allocate((2048,), np.int32)
    total = count.plan(2048, mode="multi").dispatches
    assert total >= 2
    count(2048, visits, mode="multi")
    monkeypatch.setenv("STUBJIT_FAKE_CUDA_FAIL_LAUNCH", str(launches() + 2))
    with pytest.raises(stubjit.LaunchError) as error:
        count(2048, visits, mode="multi")  # its second dispatch fails
    assert error.value.issued == 1 and error.value.total == total
    assert "CUDA_ERROR_LAUNCH_FAILED" in str(error.value)


class DLPackOnly:
    """An array that offers DLPack alone (as a PyTorch or JAX tensor does), over numpy."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_tensors_are_used_where_they_lie(rt, saxpy):
    x = np.arange(12, dtype=f32).reshape(3, 4)
    y_base = np.ones((4, 3), f32)
    y = y_base.T  # strided: DLPack gives its strides
    want = 3.0 * x + y
    saxpy(y.shape, 3.0, DLPackOnly(x), DLPackOnly(y))
    np.testing.assert_array_equal(y_base.T, want)
    field = rt.wrap(DLPackOnly(y))
    assert field.shape == (3, 4) and field.strides == (1, 3)
    assert field.data_ptr == y.ctypes.data


def test_a_host_dlpack_tensor_is_refused_on_cuda(fake_cuda):
    rt, launches = fake_cuda
    fill = rt.kernel("fill", [stubjit.inout("y", f32)], "y = 1.0f;")
    before = launches()
    with pytest.raises(stubjit.ArgumentError):
        fill(4, DLPackOnly(np.zeros(4, f32)))
    assert launches() == before
