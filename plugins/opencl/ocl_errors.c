/* ocl_errors.c — OpenCL error names and hints (messages: kforge-plugin.h's
 * kf_strf, kf_hook_fail). */
#include "ocl.h"

#include <stdio.h>

#define E(x) case x: return #x

const char *kfcl_err_name(cl_int err)
{
    static char unknown[32];
    switch (err) {
    E(CL_SUCCESS);
    E(CL_DEVICE_NOT_FOUND);
    E(CL_DEVICE_NOT_AVAILABLE);
    E(CL_COMPILER_NOT_AVAILABLE);
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    E(CL_OUT_OF_RESOURCES);
    E(CL_OUT_OF_HOST_MEMORY);
    E(CL_PROFILING_INFO_NOT_AVAILABLE);
    E(CL_MEM_COPY_OVERLAP);
    E(CL_IMAGE_FORMAT_MISMATCH);
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    E(CL_BUILD_PROGRAM_FAILURE);
    E(CL_MAP_FAILURE);
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    E(CL_COMPILE_PROGRAM_FAILURE);
    E(CL_LINKER_NOT_AVAILABLE);
    E(CL_LINK_PROGRAM_FAILURE);
    E(CL_DEVICE_PARTITION_FAILED);
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    E(CL_INVALID_VALUE);
    E(CL_INVALID_DEVICE_TYPE);
    E(CL_INVALID_PLATFORM);
    E(CL_INVALID_DEVICE);
    E(CL_INVALID_CONTEXT);
    E(CL_INVALID_QUEUE_PROPERTIES);
    E(CL_INVALID_COMMAND_QUEUE);
    E(CL_INVALID_HOST_PTR);
    E(CL_INVALID_MEM_OBJECT);
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    E(CL_INVALID_IMAGE_SIZE);
    E(CL_INVALID_SAMPLER);
    E(CL_INVALID_BINARY);
    E(CL_INVALID_BUILD_OPTIONS);
    E(CL_INVALID_PROGRAM);
    E(CL_INVALID_PROGRAM_EXECUTABLE);
    E(CL_INVALID_KERNEL_NAME);
    E(CL_INVALID_KERNEL_DEFINITION);
    E(CL_INVALID_KERNEL);
    E(CL_INVALID_ARG_INDEX);
    E(CL_INVALID_ARG_VALUE);
    E(CL_INVALID_ARG_SIZE);
    E(CL_INVALID_KERNEL_ARGS);
    E(CL_INVALID_WORK_DIMENSION);
    E(CL_INVALID_WORK_GROUP_SIZE);
    E(CL_INVALID_WORK_ITEM_SIZE);
    E(CL_INVALID_GLOBAL_OFFSET);
    E(CL_INVALID_EVENT_WAIT_LIST);
    E(CL_INVALID_EVENT);
    E(CL_INVALID_OPERATION);
    E(CL_INVALID_GL_OBJECT);
    E(CL_INVALID_BUFFER_SIZE);
    E(CL_INVALID_MIP_LEVEL);
    E(CL_INVALID_GLOBAL_WORK_SIZE);
    E(CL_INVALID_PROPERTY);
    E(CL_INVALID_IMAGE_DESCRIPTOR);
    E(CL_INVALID_COMPILER_OPTIONS);
    E(CL_INVALID_LINKER_OPTIONS);
    E(CL_INVALID_DEVICE_PARTITION_COUNT);
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
        snprintf(unknown, sizeof unknown, "CL error %d", (int)err);
        return unknown;
    }
}

const char *kfcl_err_hint(cl_int err)
{
    switch (err) {
    case CL_INVALID_WORK_GROUP_SIZE:
        return "in OpenCL 1.2 every global size must be a multiple of the local size "
               "(use round_up(n, local) in the plan and guard with if (i < n)), and "
               "the product of the local sizes must not exceed the kernel's "
               "work-group limit";
    case CL_INVALID_WORK_ITEM_SIZE:
        return "a local size exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES for that dimension";
    case CL_INVALID_GLOBAL_WORK_SIZE:
        return "a global size is 0 or does not fit the device's size_t";
    case CL_INVALID_KERNEL_ARGS:
        return "some kernel argument was never set: the plan binds fewer arguments "
               "than the kernel declares";
    case CL_INVALID_ARG_SIZE:
        return "the plan's argument type does not match the kernel parameter "
               "(int = 4 bytes, long = 8, float = 4, buffers are pointers)";
    case CL_INVALID_ARG_VALUE:
        return "a buffer was bound to a non-pointer parameter, or __local memory "
               "to a non-__local parameter";
    case CL_INVALID_MEM_OBJECT:
        return "a buffer was bound to a parameter that is not a __global/__constant pointer";
    case CL_OUT_OF_RESOURCES:
        return "the kernel uses too many registers or too much __local memory for "
               "the chosen local size, or it faulted (out-of-bounds access)";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return "the device ran out of memory for the buffers";
    case CL_INVALID_WORK_DIMENSION:
        return "the plan's global/local arrays must have 1 to 3 entries";
    default:
        return "";
    }
}
