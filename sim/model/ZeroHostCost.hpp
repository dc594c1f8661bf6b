#pragma once
/// Host time DeepSpeed's ZeRO spends in Python hooks, outside the kernels and collectives, on the
/// critical path of the step: the host must run the hook before it can launch what follows (a
/// module's forward waits for its fetch; a gradient's bucket copy is issued from its hook), so the
/// time adds to the compute stream, as a kernel's launch does (engine/ComputeCostModel).
///
///   ZeRO-3, per module with parameters, per micro-batch: a fetch and a release in forward and again
///   in backward (partitioned_param_coordinator.py fetch_sub_module / release_sub_module, called from
///   parameter_offload.py's pre/post sub-module hooks), each `module_hook_s` plus `tensor_hook_s` per
///   parameter tensor of the module (status checks, views into the gathered buffer, freeing the
///   storage).
///   Stages 2 and 3 (and 1 with overlap_comm), per trainable parameter tensor, on each backward that
///   reduces: one gradient hook, `tensor_hook_s` (copy into the reduce bucket, release the gradient).
///   A step replayed as a CUDA graph runs no hooks (stages 0-2 only: ZeroStage allows_cuda_graph).
///
/// The defaults count host operations at the cost of one eager dispatch, 4 us (a kernel launch,
/// shared/references/COMPUTE.md; ComputeCostModel's kEagerLaunch_s): a module hook four (the Python
/// hook, the all-gather launch or the free, its event, the trace bookkeeping), a tensor two (its view
/// or copy and its status). They are estimates from the code path, neither measured nor fitted:
/// docs/LIMITS.md says what measurement would replace them. Scenarios set them (`zero_host_cost:`)
/// for what-ifs, e.g. 0 for a framework without Python hooks (llm.c's C/CUDA ZeRO-1).

namespace gpuscale::model {

inline constexpr double kHostDispatch_s = 4e-6;

struct ZeroHostCost {
  double module_hook_s = 4 * kHostDispatch_s; ///< one fetch or one release of one module (ZeRO-3)
  double tensor_hook_s = 2 * kHostDispatch_s; ///< one parameter tensor in a gradient hook, a fetch or a release
};

} // namespace gpuscale::model
