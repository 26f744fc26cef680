// SPDX-License-Identifier: GPL-2.0-or-later

// A mirror of the Kata Containers Go runtime's TOML configuration types:
// the settings kata-guard checks and the security-relevant ones, with
// Kata's own Go types and toml tags, so that BurntSushi/toml decodes a
// file into them exactly as Kata does.  The json tags equal the toml tags:
// the oracle decodes the guard's view (JSON) into the same types.
//
// Source: kata-containers src/runtime/pkg/katautils/config.go at
// 7c6ba40c54ea29b459b4997cff948caaba4e658b (the local mirror's HEAD).

package main

// config.go:70-75.  Kata's fields carry no toml tag: BurntSushi matches
// "hypervisor" to the field Hypervisor by folding, which the mirror keeps
// (no toml tag either).  The json tag is the spelling Kata's own files
// use, the one the guard requires.  Factory is left out (not checked).
type kataConfig struct {
	Hypervisor map[string]kataHypervisor `json:"hypervisor"`
	Agent      map[string]kataAgent      `json:"agent"`
	Runtime    kataRuntime               `json:"runtime"`
}

// config.go:84-180 (type hypervisor struct); the line of each field is
// in its comment.
type kataHypervisor struct {
	Path                   string   `toml:"path" json:"path"`                                                 // :85
	JailerPath             string   `toml:"jailer_path" json:"jailer_path"`                                   // :86
	Kernel                 string   `toml:"kernel" json:"kernel"`                                             // :87
	Initrd                 string   `toml:"initrd" json:"initrd"`                                             // :88
	Image                  string   `toml:"image" json:"image"`                                               // :89
	RootfsType             string   `toml:"rootfs_type" json:"rootfs_type"`                                   // :90
	Firmware               string   `toml:"firmware" json:"firmware"`                                         // :91
	FirmwareVolume         string   `toml:"firmware_volume" json:"firmware_volume"`                           // :92
	KernelParams           string   `toml:"kernel_params" json:"kernel_params"`                               // :95
	EntropySource          string   `toml:"entropy_source" json:"entropy_source"`                             // :100
	SharedFS               string   `toml:"shared_fs" json:"shared_fs"`                                       // :101
	VirtioFSDaemon         string   `toml:"virtio_fs_daemon" json:"virtio_fs_daemon"`                         // :102
	VhostUserStorePath     string   `toml:"vhost_user_store_path" json:"vhost_user_store_path"`               // :104
	GuestHookPath          string   `toml:"guest_hook_path" json:"guest_hook_path"`                           // :105
	SeccompSandbox         string   `toml:"seccompsandbox" json:"seccompsandbox"`                             // :107
	HypervisorPathList     []string `toml:"valid_hypervisor_paths" json:"valid_hypervisor_paths"`             // :114
	JailerPathList         []string `toml:"valid_jailer_paths" json:"valid_jailer_paths"`                     // :115
	VirtioFSDaemonList     []string `toml:"valid_virtio_fs_daemon_paths" json:"valid_virtio_fs_daemon_paths"` // :116
	VirtioFSExtraArgs      []string `toml:"virtio_fs_extra_args" json:"virtio_fs_extra_args"`                 // :117
	VhostUserStorePathList []string `toml:"valid_vhost_user_store_paths" json:"valid_vhost_user_store_paths"` // :119
	EntropySourceList      []string `toml:"valid_entropy_sources" json:"valid_entropy_sources"`               // :120
	EnableAnnotations      []string `toml:"enable_annotations" json:"enable_annotations"`                     // :121
	DefaultMaxMemorySize   uint64   `toml:"default_maxmemory" json:"default_maxmemory"`                       // :125
	DefaultMaxVCPUs        uint32   `toml:"default_maxvcpus" json:"default_maxvcpus"`                         // :137
	MemorySize             uint32   `toml:"default_memory" json:"default_memory"`                             // :138
	MemSlots               uint32   `toml:"memory_slots" json:"memory_slots"`                                 // :139
	NumVCPUs               float32  `toml:"default_vcpus" json:"default_vcpus"`                               // :143
	Debug                  bool     `toml:"enable_debug" json:"enable_debug"`                                 // :160
	DisableImageNvdimm     bool     `toml:"disable_image_nvdimm" json:"disable_image_nvdimm"`                 // :164
	DisableSeccomp         bool     `toml:"disable_seccomp" json:"disable_seccomp"`                           // :175

	// Gone from HEAD but read by the Kata releases that had them, and
	// checked by the guard (preflight/families/kata.c, sensitive annotations):
	// config.go:86 and :112 at fefcf7cfa4^ ("acrn: Drop support"), :105
	// and :121 at 70d8f1bf3d^ ("runtime: remove file_mem_backend").
	CtlPath               string   `toml:"ctlpath" json:"ctlpath"`
	CtlPathList           []string `toml:"valid_ctlpaths" json:"valid_ctlpaths"`
	FileBackedMemRootDir  string   `toml:"file_mem_backend" json:"file_mem_backend"`
	FileBackedMemRootList []string `toml:"valid_file_mem_backends" json:"valid_file_mem_backends"`
}

// config.go:189-213 (type runtime struct).
type kataRuntime struct {
	InterNetworkModel         string   `toml:"internetworking_model" json:"internetworking_model"`               // :190
	JaegerEndpoint            string   `toml:"jaeger_endpoint" json:"jaeger_endpoint"`                           // :191
	VfioMode                  string   `toml:"vfio_mode" json:"vfio_mode"`                                       // :194
	Experimental              []string `toml:"experimental" json:"experimental"`                                 // :197
	DisableNewNetNs           bool     `toml:"disable_new_netns" json:"disable_new_netns"`                       // :199
	DisableGuestSeccomp       bool     `toml:"disable_guest_seccomp" json:"disable_guest_seccomp"`               // :200
	Debug                     bool     `toml:"enable_debug" json:"enable_debug"`                                 // :202
	SandboxCgroupOnly         bool     `toml:"sandbox_cgroup_only" json:"sandbox_cgroup_only"`                   // :203
	StaticSandboxResourceMgmt bool     `toml:"static_sandbox_resource_mgmt" json:"static_sandbox_resource_mgmt"` // :204
	EnablePprof               bool     `toml:"enable_pprof" json:"enable_pprof"`                                 // :205

	// Not a field of the Go runtime: runtime-rs's (src/libs/kata-types),
	// which picks the hypervisor table by it; the guard reads it
	// (preflight/families/kata.c).  A string there too.
	HypervisorName string `toml:"hypervisor_name" json:"hypervisor_name"`
}

// config.go:231-240 (type agent struct).
type kataAgent struct {
	KernelModules       []string `toml:"kernel_modules" json:"kernel_modules"`               // :232
	Debug               bool     `toml:"enable_debug" json:"enable_debug"`                   // :233
	Tracing             bool     `toml:"enable_tracing" json:"enable_tracing"`               // :234
	DebugConsoleEnabled bool     `toml:"debug_console_enabled" json:"debug_console_enabled"` // :235
	DialTimeout         uint32   `toml:"dial_timeout" json:"dial_timeout"`                   // :236
}
