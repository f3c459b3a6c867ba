package org.ndrt;

import java.util.ArrayList;
import java.util.List;
import org.ndrt.capi.Callbacks;
import org.ndrt.capi.NdrtC;

/** The runtime as a whole: version, configuration, logging, profiler, the op registry. */
public final class Ndrt {
  private Ndrt() {}

  /** The loaded library's version, e.g. "0.1.0". */
  public static String version() {
    return NdrtC.version_string();
  }

  /** The loaded library's ABI version ({@code NDRT_ABI_VERSION}). */
  public static long abiVersion() {
    return NdrtC.abi_version();
  }

  /** Sets a configuration key (see the README's table, e.g. "cpu.threads"). */
  public static void setConfig(String key, String value) {
    NdrtC.config_set(key, value);
  }

  /** A configuration key's current value as text. */
  public static String config(String key) {
    return NdrtC.config_get(key);
  }

  /** Routes the runtime's log lines to {@code listener} (level 0 error .. 3 debug); null: stderr. */
  public static void setLogListener(Callbacks.LogListener listener) {
    Callbacks.setLogListener(listener);
  }

  public static void setProfilerEnabled(boolean on) {
    NdrtC.profiler_enable(on ? 1 : 0);
  }

  public static void clearProfiler() {
    NdrtC.profiler_clear();
  }

  /** Per-op table of the records held (op, backend, implementation, dtype, calls, times). */
  public static String profilerSummary() {
    return NdrtC.profiler_summary();
  }

  /** Writes the records as Chrome trace-event JSON. */
  public static void writeProfilerTrace(String path) {
    NdrtC.profiler_write_trace(path);
  }

  /** Number of ops registered in the loaded runtime. */
  public static int opCount() {
    return NdrtC.op_count();
  }

  /** Names of the registered ops, in id order. */
  public static List<String> opNames() {
    int n = opCount();
    List<String> names = new ArrayList<>(n);
    for (int i = 0; i < n; ++i) {
      names.add(opName(i));
    }
    return names;
  }

  /** The registry's JSON description of op {@code id} (what {@link Ops} is generated from). */
  public static String describeOp(int id) {
    return NdrtC.op_describe(id);
  }

  /** The JSON description of the op named {@code name}. */
  public static String describeOp(String name) {
    return NdrtC.op_describe(NdrtC.op_find(name));
  }

  private static String opName(int id) {
    String json = describeOp(id);
    // {"id":N,"name":"...": the name is the first string value after "name":
    int k = json.indexOf("\"name\":\"");
    if (k < 0) {
      throw new InternalException(500, "op description without a name: " + json);
    }
    int start = k + 8;
    StringBuilder b = new StringBuilder();
    for (int i = start; i < json.length(); ++i) {
      char c = json.charAt(i);
      if (c == '\\' && i + 1 < json.length()) {
        b.append(json.charAt(++i));
      } else if (c == '"') {
        break;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }
}
