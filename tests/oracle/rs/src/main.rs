// SPDX-License-Identifier: GPL-2.0-or-later

//! The runtime-rs side of the differential oracle (tests/oracle.test).
//!
//! Kata's Rust runtime (runtime-rs, src/libs/kata-types/src/config) parses
//! its configuration with toml 0.5 (Kata 3.30; 1.1 in Kata 4) into a
//! `toml::Value` and converts that into serde-derived types.  This builds
//! against toml 0.5 to 1.x alike (tests/oracle.test picks the registry's).  serde's rules are not BurntSushi's: keys match
//! exactly (no case folding), a key twice is an error, a negative number
//! or one out of range for an unsigned field is an error, unknown keys are
//! ignored except where a type denies them ([agent.NAME], its mem_agent,
//! [hypervisor.NAME.factory]), and several tables are flattened.
//!
//!   oracle-rs kata [-v] < LINES
//!
//! LINES are tests/oracle/guard-view's (`guard-view kata FILE...`).  For
//! each file the guard allowed: decode the raw file into the mirror types
//! below (an error means runtime-rs refuses it too: "oracle-refused");
//! decode the guard's tree into the same types through `toml::Value` (the
//! same serde rules: an exact-name reader of what the guard parsed); and
//! compare the two.  A difference is a disagreement: the file, the first
//! differing path and both values are printed, and the exit status is 1.
//! 2 is an error of the harness.  -v prints, for each file runtime-rs
//! refuses, "oracle-refused FILE: WHY".
//!
//! The types mirror kata-types at Kata 3.30.0 for the settings kata-guard
//! judges and the security-relevant ones, with their serde attributes
//! (names, renames, aliases, flatten, deny_unknown_fields) and Rust types;
//! the few fields Kata 4.1.0 added to a table that denies unknown fields
//! are included too, so that 4.1's files decode.  Each struct names the
//! kata-types struct it mirrors.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::process::exit;

// ---- the mirror of kata-types ---------------------------------------------

/// config/mod.rs: TomlConfig.  Unknown top-level tables are ignored.
#[derive(Debug, Default, Deserialize, Serialize)]
struct TomlConfig {
    #[serde(default)]
    agent: BTreeMap<String, Agent>,
    #[serde(default)]
    hypervisor: BTreeMap<String, Hypervisor>,
    #[serde(default)]
    runtime: Runtime,
}

/// config/agent.rs: Agent (deny_unknown_fields: every field is here).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Agent {
    #[serde(default, rename = "enable_debug")]
    debug: bool,
    #[serde(default)]
    log_level: String,
    #[serde(default)]
    enable_tracing: bool,
    #[serde(default)]
    debug_console_enabled: bool,
    #[serde(default)]
    server_port: u32,
    #[serde(default)]
    log_port: u32,
    #[serde(default)]
    passfd_listener_port: u32,
    #[serde(default)]
    dial_timeout_ms: u32,
    #[serde(default)]
    reconnect_timeout_ms: u32,
    /// Kata reads it as seconds (a u32) and keeps it in milliseconds,
    /// saturating: the same on both sides, so the seconds are kept.
    #[serde(default)]
    create_container_timeout: u32,
    #[serde(default)]
    health_check_request_timeout_ms: u32,
    #[serde(default)]
    kernel_modules: Vec<String>,
    #[serde(default)]
    container_pipe_size: u32,
    #[serde(default)]
    launch_process_timeout: u32,
    #[serde(default)]
    mem_agent: MemAgent,
    #[serde(default)]
    policy: String,
    /// Kata 4.1.0.
    #[serde(default)]
    visible_cdi_devices: bool,
    /// Kata 4.1.0.
    #[serde(default)]
    cdh_api_timeout_ms: u32,
}

/// config/agent.rs: MemAgent (deny_unknown_fields: every field is here).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct MemAgent {
    #[serde(default, alias = "mem_agent_enable")]
    enable: bool,
    #[serde(default)]
    memcg_disable: Option<bool>,
    #[serde(default)]
    memcg_swap: Option<bool>,
    #[serde(default)]
    memcg_swappiness_max: Option<u8>,
    #[serde(default)]
    memcg_period_secs: Option<u64>,
    #[serde(default)]
    memcg_period_psi_percent_limit: Option<u8>,
    #[serde(default)]
    memcg_eviction_psi_percent_limit: Option<u8>,
    #[serde(default)]
    memcg_eviction_run_aging_count_min: Option<u64>,
    #[serde(default)]
    compact_disable: Option<bool>,
    #[serde(default)]
    compact_period_secs: Option<u64>,
    #[serde(default)]
    compact_period_psi_percent_limit: Option<u8>,
    #[serde(default)]
    compact_psi_percent_limit: Option<u8>,
    #[serde(default)]
    compact_sec_max: Option<i64>,
    #[serde(default)]
    compact_order: Option<u8>,
    #[serde(default)]
    compact_threshold: Option<u64>,
    #[serde(default)]
    compact_force_times: Option<u64>,
}

/// config/hypervisor/mod.rs: Hypervisor.  Unknown keys are ignored; the
/// flattened tables are in Kata's order (a key two of them name goes to
/// the first).
#[derive(Debug, Default, Deserialize, Serialize)]
struct Hypervisor {
    #[serde(default)]
    path: String,
    #[serde(default)]
    valid_hypervisor_paths: Vec<String>,
    #[serde(default)]
    ctlpath: String,
    #[serde(default)]
    valid_ctlpaths: Vec<String>,
    #[serde(default)]
    jailer_path: String,
    #[serde(default)]
    valid_jailer_paths: Vec<String>,
    #[serde(default)]
    disable_nesting_checks: bool,
    #[serde(default, flatten)]
    blockdev_info: BlockDeviceInfo,
    #[serde(default, flatten)]
    boot_info: BootInfo,
    #[serde(default, flatten)]
    cpu_info: CpuInfo,
    #[serde(default, flatten)]
    debug_info: DebugInfo,
    #[serde(default, flatten)]
    machine_info: MachineInfo,
    #[serde(default, flatten)]
    memory_info: MemoryInfo,
    #[serde(default, flatten)]
    network_info: NetworkInfo,
    #[serde(default, flatten)]
    security_info: SecurityInfo,
    #[serde(default, flatten)]
    shared_fs: SharedFsInfo,
    #[serde(default)]
    factory: Factory,
    #[serde(default)]
    prefetch_list_path: String,
    #[serde(default, flatten)]
    vendor: Vendor,
    #[serde(default = "yes")]
    disable_guest_selinux: bool,
    #[serde(default)]
    disable_selinux: bool,
}

fn yes() -> bool {
    true
}

/// An empty flattened vendor table (HypervisorVendor, RuntimeVendor): it
/// makes serde buffer the table, as Kata's types do.
#[derive(Debug, Default, Deserialize, Serialize)]
struct Vendor {}

/// BlockDeviceInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct BlockDeviceInfo {
    #[serde(default)]
    disable_block_device_use: bool,
    #[serde(default)]
    block_device_driver: String,
    #[serde(default)]
    disable_image_nvdimm: bool,
    #[serde(default)]
    memory_offset: u64,
    #[serde(default)]
    enable_vhost_user_store: bool,
    #[serde(default)]
    vhost_user_store_path: String,
    #[serde(default)]
    valid_vhost_user_store_paths: Vec<String>,
}

/// BootInfo.
#[derive(Debug, Default, Deserialize, Serialize)]
struct BootInfo {
    #[serde(default)]
    kernel: String,
    #[serde(default)]
    kernel_params: String,
    #[serde(default)]
    kernel_verity_params: String,
    #[serde(default)]
    initrd: String,
    #[serde(default)]
    image: String,
    #[serde(default)]
    rootfs_type: String,
    #[serde(default)]
    firmware: String,
    #[serde(default)]
    vm_rootfs_driver: String,
}

/// CpuInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct CpuInfo {
    #[serde(default)]
    cpu_features: String,
    #[serde(default)]
    default_vcpus: f32,
    #[serde(default)]
    default_maxvcpus: u32,
    /// Kata 4.1.0.
    #[serde(default)]
    overhead_vcpus: f32,
}

/// DebugInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct DebugInfo {
    #[serde(default)]
    enable_debug: bool,
    #[serde(default)]
    log_level: String,
    #[serde(default)]
    guest_memory_dump_paging: bool,
    #[serde(default)]
    guest_memory_dump_path: String,
    #[serde(default, alias = "dbg_monitor_socket")]
    extra_monitor_socket: String,
}

/// MachineInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct MachineInfo {
    #[serde(default)]
    machine_type: String,
    #[serde(default)]
    entropy_source: String,
    #[serde(default)]
    valid_entropy_sources: Vec<String>,
}

/// MemoryInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct MemoryInfo {
    #[serde(default)]
    default_memory: u32,
    #[serde(default)]
    default_maxmemory: u32,
    #[serde(default)]
    memory_slots: u32,
    /// Gone in Kata 4.1.0.
    #[serde(default)]
    file_mem_backend: String,
    /// Gone in Kata 4.1.0.
    #[serde(default)]
    valid_file_mem_backends: Vec<String>,
    /// Kata 4.1.0.
    #[serde(default)]
    overhead_memory: u32,
}

/// NetworkInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct NetworkInfo {
    #[serde(default)]
    rx_rate_limiter_max_rate: u64,
    #[serde(default)]
    tx_rate_limiter_max_rate: u64,
}

/// SecurityInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct SecurityInfo {
    #[serde(default)]
    rootless: bool,
    #[serde(default)]
    disable_seccomp: bool,
    #[serde(default)]
    confidential_guest: bool,
    #[serde(default)]
    snp_guest_policy: u32,
    #[serde(default)]
    guest_hook_path: String,
    #[serde(default)]
    initdata: String,
    #[serde(default)]
    enable_annotations: Vec<String>,
    seccomp_sandbox: Option<String>,
    #[serde(default)]
    selinux_label: Option<String>,
}

/// SharedFsInfo (part).
#[derive(Debug, Default, Deserialize, Serialize)]
struct SharedFsInfo {
    shared_fs: Option<String>,
    #[serde(default)]
    virtio_fs_daemon: String,
    #[serde(default)]
    valid_virtio_fs_daemon_paths: Vec<String>,
    #[serde(default)]
    virtio_fs_extra_args: Vec<String>,
    #[serde(default)]
    virtio_fs_cache: String,
}

/// Factory (deny_unknown_fields: every field is here).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Factory {
    #[serde(default)]
    enable_template: bool,
    #[serde(default)]
    template_path: String,
}

/// config/runtime.rs: Runtime (part).  Unknown keys are ignored.
#[derive(Debug, Default, Deserialize, Serialize)]
struct Runtime {
    #[serde(default)]
    name: String,
    #[serde(default)]
    hypervisor_name: String,
    #[serde(default)]
    agent_name: String,
    #[serde(default, rename = "enable_debug")]
    debug: bool,
    #[serde(default)]
    experimental: Vec<String>,
    #[serde(default)]
    internetworking_model: String,
    #[serde(default)]
    disable_new_netns: bool,
    #[serde(default)]
    sandbox_bind_mounts: Vec<String>,
    #[serde(default)]
    sandbox_cgroup_only: bool,
    #[serde(default)]
    enable_tracing: bool,
    #[serde(default)]
    jaeger_endpoint: String,
    #[serde(default)]
    enable_pprof: bool,
    #[serde(default)]
    static_sandbox_resource_mgmt: bool,
    #[serde(default)]
    disable_guest_seccomp: bool,
    #[serde(default)]
    vfio_mode: String,
    #[serde(default, flatten)]
    vendor: Vendor,
    #[serde(default)]
    keep_abnormal: bool,
    #[serde(default)]
    dan_conf: String,
    #[serde(default)]
    use_passfd_io: bool,
}

// ---- the guard's view --------------------------------------------------------

/// The guard's tree (guard-view's JSON) as the TOML value it was parsed
/// from: {"$float": TEXT} is a float (TEXT: %.17g, nan, inf or -inf); the
/// guard refuses date-times, so there are none.
fn to_toml(v: &serde_json::Value) -> Result<toml::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::String(s) => toml::Value::String(s.clone()),
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => return Err(format!("not a 64-bit integer: {}", n)),
        },
        J::Array(a) => toml::Value::Array(a.iter().map(to_toml).collect::<Result<_, _>>()?),
        J::Object(m) => {
            if m.len() == 1 {
                if let Some(J::String(t)) = m.get("$float") {
                    let f = match t.as_str() {
                        "nan" => f64::NAN,
                        "inf" => f64::INFINITY,
                        "-inf" => f64::NEG_INFINITY,
                        t => t.parse::<f64>().map_err(|e| format!("float {:?}: {}", t, e))?,
                    };
                    return Ok(toml::Value::Float(f));
                }
            }
            let mut t = toml::value::Table::new();
            for (k, x) in m {
                t.insert(k.clone(), to_toml(x)?);
            }
            toml::Value::Table(t)
        }
        J::Null => return Err("null in the tree".into()),
    })
}

// ---- comparison -----------------------------------------------------------------

/// The first path at which A and B differ, with both values there.  NaN
/// equals NaN; an absent Option is "(absent)".
fn diff(a: Option<&toml::Value>, b: Option<&toml::Value>, path: &str) -> Option<(String, String, String)> {
    use toml::Value as T;
    let show = |v: Option<&T>| v.map_or("(absent)".to_string(), |v| v.to_string());
    match (a, b) {
        (None, None) => None,
        (Some(T::Table(x)), Some(T::Table(y))) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| diff(x.get(k), y.get(k), &format!("{}.{}", path, k)))
        }
        (Some(T::Array(x)), Some(T::Array(y))) if x.len() == y.len() => x
            .iter()
            .zip(y.iter())
            .enumerate()
            .find_map(|(i, (p, q))| diff(Some(p), Some(q), &format!("{}[{}]", path, i))),
        (Some(T::Float(x)), Some(T::Float(y))) if x == y || (x.is_nan() && y.is_nan()) => None,
        (Some(x), Some(y)) if x == y => None,
        _ => Some((path.to_string(), show(a), show(b))),
    }
}

#[derive(Default)]
struct Counts {
    inputs: u64,
    allowed: u64,
    oracle_refused: u64,
    agreed: u64,
    disagreements: u64,
}

/// One guard-view line: Ok(None) when the two agree or there is nothing
/// to compare, Ok(Some(report)) for a disagreement.
fn compare_line(line: &str, c: &mut Counts, verbose: bool) -> Result<Option<String>, String> {
    let g: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("unreadable guard-view line: {}: {:.200}", e, line))?;
    let file = g["file"].as_str().ok_or("a guard-view line without a file")?;
    c.inputs += 1;
    if g["allowed"] != serde_json::Value::Bool(true) {
        return Ok(None);
    }
    c.allowed += 1;
    if g["tree"].is_null() {
        return Err(format!("{}: allowed without a tree", file));
    }
    let raw = std::fs::read(file).map_err(|e| format!("{}: {}", file, e))?;

    // (a) runtime-rs's decoding of the raw file, as its loader does it
    // (config/drop_in.rs, load): the file read into a String (invalid
    // UTF-8 is an error), parsed into a toml::Value (where config.d's
    // drop-ins are merged), and that converted into the types.
    let real: TomlConfig = match std::str::from_utf8(&raw)
        .map_err(|e| e.to_string())
        .and_then(|s| toml::from_str::<toml::Value>(s).map_err(|e| e.to_string()))
        .and_then(|v| v.try_into::<TomlConfig>().map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            if verbose {
                println!("oracle-refused {}: {}", file, e.replace('\n', " "));
            }
            c.oracle_refused += 1;
            return Ok(None);
        }
    };

    // (b) the guard's tree through the same types.
    let tree = to_toml(&g["tree"]).map_err(|e| format!("{}: the guard's tree: {}", file, e))?;
    let view: TomlConfig = match tree.try_into() {
        Ok(v) => v,
        Err(e) => {
            c.disagreements += 1;
            return Ok(Some(format!(
                "DISAGREEMENT {}\n  at (decoding the guard's view)\n  guard sees: {}\n  runtime-rs sees: decodes without error",
                file, e
            )));
        }
    };

    // (c) compare.
    let rv = toml::Value::try_from(&real).map_err(|e| format!("{}: {}", file, e))?;
    let vv = toml::Value::try_from(&view).map_err(|e| format!("{}: {}", file, e))?;
    match diff(Some(&vv), Some(&rv), "$") {
        None => {
            c.agreed += 1;
            Ok(None)
        }
        Some((p, gs, rs)) => {
            c.disagreements += 1;
            Ok(Some(format!(
                "DISAGREEMENT {}\n  at {}\n  guard sees: {}\n  runtime-rs sees: {}",
                file, p, gs, rs
            )))
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let verbose = args.len() == 3 && args[2] == "-v";
    if args.len() < 2 || args.len() > 3 || args[1] != "kata" || (args.len() == 3 && !verbose) {
        eprintln!("usage: oracle-rs kata [-v] < guard-view-lines   (-v: say why runtime-rs refuses a file)");
        exit(2);
    }
    let mut c = Counts::default();
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut status = 0;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("oracle-rs: {}", e);
                exit(2);
            }
        };
        match compare_line(&line, &mut c, verbose) {
            Ok(None) => {}
            Ok(Some(d)) => {
                let _ = writeln!(out, "{}", d);
            }
            Err(e) => {
                eprintln!("oracle-rs: {}", e);
                status = 2;
                break;
            }
        }
    }
    let _ = writeln!(
        out,
        "oracle-rs kata: inputs {}, guard-allowed {}, oracle-refused {}, agreed {}, disagreements {}",
        c.inputs, c.allowed, c.oracle_refused, c.agreed, c.disagreements
    );
    if out.flush().is_err() {
        status = 2;
    }
    if status == 0 && c.disagreements > 0 {
        status = 1;
    }
    exit(status);
}
