package org.ndrt;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.ndrt.capi.NdrtC;

/**
 * The SWIG layer covers the whole C ABI: every function of include/ndrt/ndrt.h has a method in
 * NdrtC, and every function with an out-parameter returns its value (bindings/ndrt.i lists them;
 * this test names what a header change left out).
 */
class CApiCoverageTest {
  /** C functions replaced by a JNI version under another name. */
  static final Map<String, String> REPLACED = Map.of("tensor_wrap", "tensor_wrap_buffer");

  @Test
  void everyHeaderFunctionIsWrapped() throws IOException {
    String header = System.getProperty("ndrt.header");
    assertTrue(header != null && Files.isRegularFile(Path.of(header)), "-Dndrt.header=<path of ndrt.h> is set");
    String text = Files.readString(Path.of(header));
    // NDRT_API <return type> ndrt_<name>(<params>);
    Pattern fn = Pattern.compile("NDRT_API\\s+([\\w\\s\\*]+?)\\s*\\bndrt_(\\w+)\\s*\\(([^)]*)\\)\\s*;", Pattern.DOTALL);
    Matcher m = fn.matcher(text);
    List<String> missing = new ArrayList<>();
    List<String> lostOutputs = new ArrayList<>();
    int count = 0;
    while (m.find()) {
      ++count;
      String name = REPLACED.getOrDefault(m.group(2), m.group(2));
      String params = m.group(3);
      Method found = null;
      for (Method method : NdrtC.class.getMethods()) {
        if (method.getName().equals(name) && Modifier.isStatic(method.getModifiers())) {
          found = method;
        }
      }
      if (found == null) {
        missing.add("ndrt_" + m.group(2));
        continue;
      }
      boolean hasOut = params.matches("(?s).*\\*\\s*(out|op_id|needed)\\s*(,.*)?")
          || params.matches("(?s).*char\\s*\\*\\s*buf\\b.*");
      if (hasOut && !m.group(2).equals("get_api") && found.getReturnType() == void.class) {
        lostOutputs.add("ndrt_" + m.group(2));
      }
      for (Class<?> p : found.getParameterTypes()) {
        if (p.getSimpleName().startsWith("SWIGTYPE_")) {
          missing.add("ndrt_" + m.group(2) + " (parameter " + p.getSimpleName() + " has no typemap)");
        }
      }
    }
    assertTrue(count >= 50, "parsed " + count + " functions from " + header);
    assertTrue(missing.isEmpty(), "not wrapped by bindings/ndrt.i: " + missing);
    assertTrue(lostOutputs.isEmpty(), "out-parameters not returned (add NDRT_RETURNS_* lines to bindings/ndrt.i): "
        + lostOutputs);
  }
}
