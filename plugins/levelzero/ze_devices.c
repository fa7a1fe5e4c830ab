/*
 * ze_devices.c — zeInit, the drivers the loader finds and their devices
 * (flattened into one list, as `kforge backends` shows it), and a context
 * and compute queue per device, created on first use.
 */
#include "kfze.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DRIVERS 16
#define MAX_DEVS 64

static struct {
    int done;
    kf_status status;
    char why[512];
    int n;
    kfze_device devs[MAX_DEVS];
} reg;

static const char *NO_DRIVER =
    "no Level Zero driver found: the loader (libze_loader) is here but no driver registered with it; "
    "install a GPU driver such as intel-level-zero-gpu (Intel Arc / Data Center GPU Max), check "
    "that the user may open /dev/dri/renderD*, and set ZE_ENABLE_LOADER_DEBUG_TRACE=1 to see what "
    "the loader tried";

static void enumerate(void)
{
    reg.done = 1;
    reg.status = KF_ERR_UNAVAILABLE;
    ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
    if (r == ZE_RESULT_ERROR_UNINITIALIZED) {
        snprintf(reg.why, sizeof reg.why, "%s (zeInit: ZE_RESULT_ERROR_UNINITIALIZED)", NO_DRIVER);
        return;
    }
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(reg.why, sizeof reg.why, "zeInit failed: %s", kfze_err_name(r));
        return;
    }
    uint32_t nd = 0;
    r = zeDriverGet(&nd, NULL);
    if (r != ZE_RESULT_SUCCESS || nd == 0) {
        snprintf(reg.why, sizeof reg.why, "%s (zeDriverGet: %s, %u drivers)", NO_DRIVER, kfze_err_name(r), nd);
        return;
    }
    if (nd > MAX_DRIVERS) nd = MAX_DRIVERS;
    ze_driver_handle_t drivers[MAX_DRIVERS];
    if ((r = zeDriverGet(&nd, drivers)) != ZE_RESULT_SUCCESS) {
        snprintf(reg.why, sizeof reg.why, "zeDriverGet failed: %s", kfze_err_name(r));
        return;
    }
    for (uint32_t i = 0; i < nd; i++) {
        ze_driver_properties_t dp;
        memset(&dp, 0, sizeof dp);
        dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
        zeDriverGetProperties(drivers[i], &dp);
        uint32_t ndev = 0;
        if (zeDeviceGet(drivers[i], &ndev, NULL) != ZE_RESULT_SUCCESS || ndev == 0) continue;
        ze_device_handle_t ids[MAX_DEVS];
        if (ndev > (uint32_t)(MAX_DEVS - reg.n)) ndev = (uint32_t)(MAX_DEVS - reg.n);
        if (ndev == 0 || zeDeviceGet(drivers[i], &ndev, ids) != ZE_RESULT_SUCCESS) continue;
        for (uint32_t k = 0; k < ndev; k++) {
            kfze_device *d = &reg.devs[reg.n];
            memset(d, 0, sizeof *d);
            d->driver = drivers[i];
            d->driver_index = (int)i;
            d->driver_version = dp.driverVersion;
            d->id = ids[k];
            d->props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
            if (zeDeviceGetProperties(d->id, &d->props) != ZE_RESULT_SUCCESS) continue;
            d->compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
            zeDeviceGetComputeProperties(d->id, &d->compute);
            uint32_t nm = 0;
            if (zeDeviceGetMemoryProperties(d->id, &nm, NULL) == ZE_RESULT_SUCCESS && nm > 0) {
                ze_device_memory_properties_t mp[8];
                if (nm > 8) nm = 8;
                for (uint32_t m = 0; m < nm; m++) {
                    memset(&mp[m], 0, sizeof mp[m]);
                    mp[m].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
                }
                if (zeDeviceGetMemoryProperties(d->id, &nm, mp) == ZE_RESULT_SUCCESS)
                    for (uint32_t m = 0; m < nm; m++) d->mem_bytes += mp[m].totalSize;
            }
            size_t nl = strnlen(d->props.name, sizeof d->props.name);
            if (nl >= sizeof d->name) nl = sizeof d->name - 1;
            memcpy(d->name, nl ? d->props.name : "unnamed device", nl ? nl : 14);
            d->name[nl ? nl : 14] = '\0';
            reg.n++;
        }
    }
    if (reg.n == 0) {
        snprintf(reg.why, sizeof reg.why, "the Level Zero driver(s) (%u) offer no GPU device", nd);
        return;
    }
    reg.status = KF_OK;
}

kf_status kfze_devices(kfze_device **devs, int *n, char *why, size_t why_len)
{
    if (!reg.done) enumerate();
    *devs = reg.devs;
    *n = reg.n;
    if (reg.status != KF_OK && why && why_len) snprintf(why, why_len, "%s", reg.why);
    return reg.status;
}

kf_status kfze_device_open(kfze_device *d, char **error)
{
    if (d->queue) return KF_OK;
    ze_result_t r;
    if (!d->ctx) {
        ze_context_desc_t cd = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, NULL, 0};
        if ((r = zeContextCreate(d->driver, &cd, &d->ctx)) != ZE_RESULT_SUCCESS)
            return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "zeContextCreate on '%s' failed: %s", d->name,
                                kfze_err_name(r));
    }
    /* the first queue group that can run compute */
    uint32_t ng = 0;
    zeDeviceGetCommandQueueGroupProperties(d->id, &ng, NULL);
    ze_command_queue_group_properties_t g[16];
    if (ng > 16) ng = 16;
    for (uint32_t i = 0; i < ng; i++) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    }
    d->queue_ordinal = 0;
    if (ng && zeDeviceGetCommandQueueGroupProperties(d->id, &ng, g) == ZE_RESULT_SUCCESS)
        for (uint32_t i = 0; i < ng; i++)
            if (g[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
                d->queue_ordinal = i;
                break;
            }
    ze_command_queue_desc_t qd = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, NULL, d->queue_ordinal, 0, 0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    if ((r = zeCommandQueueCreate(d->ctx, d->id, &qd, &d->queue)) != ZE_RESULT_SUCCESS)
        return kf_hook_fail(error, KF_ERR_UNAVAILABLE, "zeCommandQueueCreate on '%s' failed: %s", d->name,
                            kfze_err_name(r));
    return KF_OK;
}

/* One line of what kforge backends shows under the device. */
static void detail_text(const kfze_device *d, char *out, size_t n)
{
    const ze_device_properties_t *p = &d->props;
    const ze_device_compute_properties_t *c = &d->compute;
    char sg[96] = "";
    for (uint32_t i = 0; i < c->numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; i++) {
        size_t used = strlen(sg);
        snprintf(sg + used, sizeof sg - used, "%s%u", i ? "/" : "", c->subGroupSizes[i]);
    }
    uint32_t eus = p->numSlices * p->numSubslicesPerSlice * p->numEUsPerSubslice;
    snprintf(out, n,
             "driver %d (version %u); vendor 0x%04x device 0x%04x; %u EUs (%u slices x %u subslices x %u), %u threads/EU, SIMD %u; "
             "core clock %u MHz; memory %.1f GiB; max group %u (x %u, y %u, z %u); shared local memory %u B; "
             "subgroup sizes %s; timer resolution %llu ns, kernel timestamps %u bits",
             d->driver_index, d->driver_version, p->vendorId, p->deviceId, eus, p->numSlices, p->numSubslicesPerSlice, p->numEUsPerSubslice,
             p->numThreadsPerEU, p->physicalEUSimdWidth, p->coreClockRate, (double)d->mem_bytes / (1 << 30),
             c->maxTotalGroupSize, c->maxGroupSizeX, c->maxGroupSizeY, c->maxGroupSizeZ, c->maxSharedLocalMemory,
             *sg ? sg : "none reported", (unsigned long long)p->timerResolution, p->kernelTimestampValidBits);
}

static void fill_info(const kfze_device *d, kf_device_info *o)
{
    uint32_t size = o->struct_size;
    snprintf(o->name, sizeof o->name, "%s", d->name);
    snprintf(o->kind, sizeof o->kind, "%s",
             d->props.type == ZE_DEVICE_TYPE_GPU ? "gpu" : d->props.type == ZE_DEVICE_TYPE_CPU ? "cpu" : "accelerator");
    detail_text(d, o->detail, sizeof o->detail);
    /* peaks: an estimate from the EU count and clock (FMA x SIMD lanes x 2
       pipes per EU on Xe); 0 (unknown) when the driver reports no EUs */
    uint32_t eus = d->props.numSlices * d->props.numSubslicesPerSlice * d->props.numEUsPerSubslice;
    o->peak_flops = (double)eus * d->props.physicalEUSimdWidth * 2.0 * 2.0 * d->props.coreClockRate * 1e6;
    o->peak_flops_measured = 0;
    if (size >= offsetof(kf_device_info, matrix_units) + sizeof o->matrix_units) {
        snprintf(o->arch, sizeof o->arch, "ze-0x%04x", d->props.deviceId);
        o->compute_units = (int)eus;
        o->warp_size = d->compute.numSubGroupSizes ? (int)d->compute.subGroupSizes[d->compute.numSubGroupSizes - 1] : 0;
        o->max_work_group = (int)d->compute.maxTotalGroupSize;
        o->local_mem_per_group = d->compute.maxSharedLocalMemory;
        o->local_mem_per_group_optin = d->compute.maxSharedLocalMemory;
    }
}

kf_status kfze_list(kf_device_info *devs, size_t dev_size, int max, int *n, char *why, size_t why_len)
{
    kfze_device *d;
    int nd;
    *n = 0;
    kf_status st = kfze_devices(&d, &nd, why, why_len);
    if (st != KF_OK) return st;
    for (int i = 0; i < nd && i < max; i++) {
        kf_device_info *o = (kf_device_info *)(void *)((char *)devs + (size_t)i * dev_size);
        fill_info(&d[i], o);
        (*n)++;
    }
    return KF_OK;
}

kf_status kfze_probe(kf_device_info *devs, int max, int *n, char *why, size_t why_len)
{
    return kfze_list(devs, sizeof *devs, max, n, why, why_len);
}
