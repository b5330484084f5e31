// The XNNPACK backend: init() checks the payload and builds an XNNPACK runtime for the
// planned (upper-bound) sizes; execute() runs it.
//
// Dynamic sizes: this XNNPACK (2022) fixes every tensor's sizes when a runtime is
// created and has no reshape API, so each delegate keeps a small cache of runtimes,
// one per distinct set of sizes (kMaxRuntimes, least recently used replaced). A call
// with new sizes (a new sequence length) builds a runtime, which repacks the weights:
// a few milliseconds, after which that length runs at full speed.
//
// Layouts: the program's tensors are NCHW, XNNPACK's convolutions and pooling NHWC. A
// channels-last delegate input is transposed into a staging buffer before the run, a
// channels-last output written to one and transposed back after it (neither when its
// channels or spatial dims are all 1: both orders are then the same memory).
#include "backends/xnnpack/runtime/xnnpack_backend.h"

#include <stdio.h>
#include <stdlib.h>

#include <new>
#include <vector>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "backends/xnnpack/runtime/xnnpack_graph.h"

namespace tailor::xnnpack {
namespace {

constexpr size_t kMaxRuntimes = 4;

struct CachedRuntime {
  std::vector<Dims> dims;
  xnn_runtime_t runtime = nullptr;
  uint64_t last_used = 0;
};

// dst[n][j][i] = src[n][i][j] for `batch` planes of rows x cols, in tiles so that both
// sides stay in cache; reads run along src's rows.
void transpose_planes(const float* src, float* dst, size_t batch, size_t rows, size_t cols) {
  constexpr size_t kTile = 32;
  const size_t plane = rows * cols;
  for (size_t n = 0; n < batch; ++n) {
    const float* in = src + n * plane;
    float* out = dst + n * plane;
    for (size_t r0 = 0; r0 < rows; r0 += kTile) {
      const size_t r1 = r0 + kTile < rows ? r0 + kTile : rows;
      for (size_t c0 = 0; c0 < cols; c0 += kTile) {
        const size_t c1 = c0 + kTile < cols ? c0 + kTile : cols;
        for (size_t r = r0; r < r1; ++r) {
          for (size_t c = c0; c < c1; ++c) out[c * rows + r] = in[r * cols + c];
        }
      }
    }
  }
}

// dst[n][s][c] = src[n][c][s].
void to_channels_last(const float* src, float* dst, const ChannelsLastShape& x) {
  transpose_planes(src, dst, x.batch, x.channels, x.spatial);
}

// dst[n][c][s] = src[n][s][c].
void from_channels_last(const float* src, float* dst, const ChannelsLastShape& x) {
  transpose_planes(src, dst, x.batch, x.spatial, x.channels);
}

// Threads: one pool per method, shared by its delegates (BackendInitContext::previous),
// created by its first delegate and freed with its last. Not one per process: methods
// run at once on their threads (the C API promises it), and a shared pool would run
// their delegates one at a time (pthreadpool takes one job at a time) and be a global
// to lock. Not one per delegate: a method of many delegates (XNNPACK beside portable
// kernels takes every group it can) keeps threads - 1 workers, not that many each.
struct MethodPool {
  pthreadpool_t pool = nullptr;
  size_t users = 0;  // the method's delegates: made by one load, freed by one destructor
};

}  // namespace
}  // namespace tailor::xnnpack

struct tailor::DelegateHandle {
  xnnpack::XnnpackGraph graph;
  std::vector<xnnpack::CachedRuntime> runtimes;
  std::vector<xnnpack::Dims> dims;               // scratch: this call's sizes
  std::vector<xnn_external_value> externals;     // scratch: this call's pointers
  std::vector<std::vector<float>> staging;       // per external id: its NHWC copy, if any
  xnnpack::MethodPool* pool = nullptr;       // nullptr: the caller's thread only
  uint64_t calls = 0;
  char where[96];
};

namespace tailor::xnnpack {
namespace {

bool is_available() { return xnn_initialize(nullptr) == xnn_status_success; }

// A pool of `options.num_threads` threads, or nullptr (then delegates run on the
// caller's thread) when the system gives none.
MethodPool* new_pool(const BackendOptions& options) {
  MethodPool* p = new (std::nothrow) MethodPool();
  if (p != nullptr) p->pool = pthreadpool_create(options.num_threads);
  if (p != nullptr && p->pool == nullptr) {
    delete p;
    p = nullptr;
  }
  return p;
}

// Backend::rest: sends the pool's workers to sleep now. After a job pthreadpool's workers
// poll for the next one for a million iterations (tens of milliseconds), so after a
// delegate they took a core from the optimized kernels splitting their work next
// (ResNet-18 and the ViT on two threads: 20-27 and 26 ms, 17 and 16 ms rested). An empty
// job of one task a thread asks them to yield; right after a delegate they are still
// polling, so it wakes no one (later it wakes them, once). Not after every call, nor by
// XNN_FLAG_YIELD_WORKERS (runtimes are made without it: it yields after a runtime's last
// operator): a method of small delegates between serial kernels would wake them again for
// each (gpt_tiny beside the portable kernels, T=1, two threads: 0.02 -> 0.1 ms).
void rest(DelegateHandle* h) {
  if (h->pool == nullptr) return;
  pthreadpool_t pool = h->pool->pool;
  pthreadpool_parallelize_1d(pool, [](void*, size_t) {}, nullptr,
                             pthreadpool_get_threads_count(pool),
                             PTHREADPOOL_FLAG_YIELD_WORKERS);
}

void destroy(DelegateHandle* h) {
  for (CachedRuntime& r : h->runtimes) xnn_delete_runtime(r.runtime);
  if (h->pool != nullptr && --h->pool->users == 0) {
    pthreadpool_destroy(h->pool->pool);
    delete h->pool;
  }
  delete h;
}

// The runtime for h->dims: cached, or built now (replacing the least recently used).
Error runtime_for(DelegateHandle* h, ArrayRef<EValue*> args, xnn_runtime_t* out) {
  ++h->calls;
  for (CachedRuntime& r : h->runtimes) {
    if (r.dims == h->dims) {
      r.last_used = h->calls;
      *out = r.runtime;
      return Error::Ok;
    }
  }
  xnn_subgraph_t subgraph = nullptr;
  Error err = h->graph.define(args, h->dims, &subgraph);
  xnn_runtime_t runtime = nullptr;
  if (err == Error::Ok) {
    pthreadpool_t pool = h->pool != nullptr ? h->pool->pool : nullptr;
    const xnn_status s = xnn_create_runtime_v2(subgraph, pool, 0, &runtime);
    if (s != xnn_status_success) {
      TL_LOG(Error, "%s: XNNPACK could not create a runtime (status %d)", h->where,
             static_cast<int>(s));
      err = s == xnn_status_out_of_memory ? Error::DelegateMemoryAllocationFailed
                                          : Error::DelegateInvalidCompatibility;
    }
  }
  if (subgraph != nullptr) xnn_delete_subgraph(subgraph);  // the runtime keeps what it needs
  if (err != Error::Ok) return err;
  if (h->runtimes.size() == kMaxRuntimes) {
    CachedRuntime* oldest = &h->runtimes[0];
    for (CachedRuntime& r : h->runtimes) oldest = r.last_used < oldest->last_used ? &r : oldest;
    xnn_delete_runtime(oldest->runtime);
    *oldest = CachedRuntime{h->dims, runtime, h->calls};
  } else {
    h->runtimes.push_back(CachedRuntime{h->dims, runtime, h->calls});
  }
  *out = runtime;
  return Error::Ok;
}

Result<DelegateHandle*> init(const BackendInitContext& ctx, const void* payload, size_t size) {
  DelegateHandle* h = new (std::nothrow) DelegateHandle();
  TL_CHECK_OR_RETURN_ERROR(h != nullptr, DelegateMemoryAllocationFailed,
                           "method '%s': no memory for an xnnpack delegate", ctx.method_name);
  snprintf(h->where, sizeof(h->where), "method '%s'", ctx.method_name);
  h->pool = ctx.previous != nullptr ? ctx.previous->pool : nullptr;
  if (h->pool == nullptr && ctx.options.num_threads > 1) h->pool = new_pool(ctx.options);
  if (h->pool != nullptr) ++h->pool->users;
  // Check the payload, then build the runtime for the planned sizes now, so a payload
  // XNNPACK cannot run fails at load, not at the first call.
  Error err = h->graph.load(payload, size, ctx.args, h->where);
  if (err == Error::Ok) err = h->graph.infer_dims(ctx.args, &h->dims);
  xnn_runtime_t runtime = nullptr;
  if (err == Error::Ok) err = runtime_for(h, ctx.args, &runtime);
  if (err != Error::Ok) {
    destroy(h);
    return err;
  }
  return h;
}

Error execute(DelegateHandle* h, ArrayRef<EValue*> args) {
  Error err = h->graph.infer_dims(args, &h->dims);
  if (err == Error::Ok) err = h->graph.resize_outputs(args, h->dims);
  xnn_runtime_t runtime = nullptr;
  if (err == Error::Ok) err = runtime_for(h, args, &runtime);
  if (err != Error::Ok) return err;
  const std::vector<uint32_t>& external = h->graph.external_args();
  const std::vector<uint32_t>& value_of = h->graph.external_values();
  h->externals.resize(external.size());
  h->staging.resize(external.size());
  for (uint32_t id = 0; id < external.size(); ++id) {
    Tensor& t = args[external[id]]->to_tensor();
    void* data = t.data();
    ChannelsLastShape shape;
    if (h->graph.channels_last(value_of[id], h->dims[value_of[id]], &shape) &&
        !shape.trivial()) {
      // XNNPACK may read XNN_EXTRA_BYTES past an input.
      std::vector<float>& staged = h->staging[id];
      staged.resize(shape.batch * shape.channels * shape.spatial +
                    XNN_EXTRA_BYTES / sizeof(float));
      if (!h->graph.is_output(value_of[id])) {
        to_channels_last(static_cast<const float*>(data), staged.data(), shape);
      }
      data = staged.data();
    }
    h->externals[id] = xnn_external_value{id, data};
  }
  xnn_status s = xnn_setup_runtime(runtime, h->externals.size(), h->externals.data());
  if (s == xnn_status_success) s = xnn_invoke_runtime(runtime);
  TL_CHECK_OR_RETURN_ERROR(s == xnn_status_success, DelegateInvalidCompatibility,
                           "%s: XNNPACK failed to run a delegate (status %d)", h->where,
                           static_cast<int>(s));
  for (uint32_t id = 0; id < external.size(); ++id) {
    Tensor& t = args[external[id]]->to_tensor();
    if (h->graph.is_output(value_of[id]) && h->externals[id].data != t.data()) {
      ChannelsLastShape shape;
      h->graph.channels_last(value_of[id], h->dims[value_of[id]], &shape);
      from_channels_last(h->staging[id].data(), static_cast<float*>(t.data()), shape);
    }
  }
  return Error::Ok;
}

}  // namespace

const Backend kBackend = {"xnnpack", &is_available, &init, &execute, &destroy, &rest};

}  // namespace tailor::xnnpack
