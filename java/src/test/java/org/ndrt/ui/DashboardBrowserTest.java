package org.ndrt.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.ndrt.data.DataSet;
import org.ndrt.nn.Model;
import org.ndrt.nn.MultiLayerNetwork;
import org.ndrt.nn.conf.Activation;
import org.ndrt.nn.conf.InputType;
import org.ndrt.nn.conf.Json;
import org.ndrt.nn.conf.LossFunction;
import org.ndrt.nn.conf.MultiLayerConfiguration;
import org.ndrt.nn.conf.NeuralNetConfiguration;
import org.ndrt.nn.conf.WeightInit;
import org.ndrt.nn.conf.layers.ConvolutionLayer;
import org.ndrt.nn.conf.layers.DenseLayer;
import org.ndrt.nn.conf.layers.OutputLayer;
import org.ndrt.nn.conf.layers.SubsamplingLayer;
import org.ndrt.nn.listeners.TrainingListener;
import org.ndrt.nn.updater.Nesterovs;

/**
 * The dashboard in a real browser: headless Chromium (Debian's {@code chromium}; another binary via
 * the environment variable NDRT_CHROMIUM) loads the page while a short training is paused half way,
 * and the DOM it ends with must hold the score chart's points exactly as the listener recorded them
 * and a layer table matching the model. A screenshot is kept in ui-test-output/dashboard.png under
 * the test's working directory (ctest: build/java). Skipped, saying so, where no Chromium is installed.
 */
class DashboardBrowserTest {
  static String findChromium() {
    String env = System.getenv("NDRT_CHROMIUM");
    if (env != null && !env.isEmpty()) {
      return env;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
        File f = new File(dir, name);
        if (f.canExecute()) {
          return f.getPath();
        }
      }
    }
    return null;
  }

  static MultiLayerConfiguration smallCnn() {
    return new NeuralNetConfiguration.Builder().seed(5).weightInit(WeightInit.XAVIER).updater(new Nesterovs(0.05, 0.9))
        .list()
        .layer(new ConvolutionLayer.Builder(3, 3).nOut(4).activation(Activation.RELU).build())
        .layer(new SubsamplingLayer.Builder(SubsamplingLayer.PoolingType.MAX).kernelSize(2, 2).stride(2, 2).build())
        .layer(new DenseLayer.Builder().nOut(10).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunction.NEGATIVELOGLIKELIHOOD).nOut(3).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.convolutionalFlat(8, 8, 1))
        .build();
  }

  /** Runs chromium headless with {@code args} then the URL; returns its standard output. */
  static String chromium(String exe, Path profile, String url, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(exe, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--virtual-time-budget=5000"));
    cmd.addAll(List.of(args));
    cmd.add(url);
    Path out = Files.createTempFile("chromium", ".out");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      if (!p.waitFor(180, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("chromium did not finish in 180 s: " + cmd);
      }
      return Files.readString(out, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** An attribute of the first element whose start tag matches {@code tagStart}. */
  static String attribute(String dom, String tagStart, String name) {
    int i = dom.indexOf(tagStart);
    assertTrue(i >= 0, "no " + tagStart + " in the page");
    String tag = dom.substring(i, dom.indexOf('>', i));
    Matcher m = Pattern.compile("\\s" + Pattern.quote(name) + "=\"([^\"]*)\"").matcher(tag);
    assertTrue(m.find(), "no " + name + " in " + tag);
    return m.group(1);
  }

  @Test
  void pageShowsWhatTheListenerRecorded() throws Exception {
    String exe = findChromium();
    Assumptions.assumeTrue(exe != null, "SKIPPED: no chromium found (install Debian's package chromium, as"
        + " packaging/install-deps.sh does, or set NDRT_CHROMIUM); the dashboard's browser test did not run");
    int pauseAt = 8;
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    InMemoryStatsStorage storage = new InMemoryStatsStorage();
    Path work = Files.createTempDirectory("ndrt-ui");
    Path outDir = Path.of("ui-test-output").toAbsolutePath();
    Files.createDirectories(outDir);
    try (UIServer server = UIServer.start(0); MultiLayerNetwork net = new MultiLayerNetwork(smallCnn());
         DataSet ds = StatsListenerTest.imageData(16, 8 * 8, 3, 21)) {
      server.attach(storage);
      net.init();
      StatsListener stats = StatsListener.builder(storage).sessionId("browser").summaryEvery(4).profileEvery(5).build();
      TrainingListener pause = new TrainingListener() {
        @Override
        public void iterationDone(Model model, long iteration, int epoch, double score, int examples) {
          if (iteration == pauseAt) {
            paused.countDown();
            try {
              resume.await(10, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }
      };
      net.setListeners(stats, pause);
      Throwable[] failure = new Throwable[1];
      Thread trainer = new Thread(() -> {
        try {
          for (int i = 0; i < 12; ++i) {
            net.fit(ds);
          }
        } catch (Throwable t) {
          failure[0] = t;
          paused.countDown();
        }
      }, "training");
      trainer.start();
      String dom;
      try {
        assertTrue(paused.await(5, TimeUnit.MINUTES), "training did not reach iteration " + pauseAt);
        assertEquals(null, failure[0]);
        String url = server.url();
        dom = chromium(exe, work.resolve("p1"), url, "--dump-dom");
        chromium(exe, work.resolve("p2"), url, "--window-size=1400,1600", "--screenshot=" + outDir.resolve("dashboard.png"));
        Files.writeString(outDir.resolve("dashboard.html"), dom);
      } finally {
        resume.countDown();
        trainer.join(TimeUnit.MINUTES.toMillis(5));
      }
      assertEquals(null, failure[0]);
      System.out.println("dashboard screenshot: " + outDir.resolve("dashboard.png") + ", DOM: " + outDir.resolve("dashboard.html"));
      assertTrue(Files.size(outDir.resolve("dashboard.png")) > 1000, "the screenshot is written");

      // The score chart: every point the listener had recorded when the page loaded, bit for bit.
      List<String> recorded = storage.updates("browser", 0, 1000).subList(0, pauseAt);
      String xy = attribute(dom, "<svg id=\"chart-score\"", "data-xy");
      String[] pts = xy.split(";");
      assertEquals(pauseAt, pts.length, xy);
      for (int i = 0; i < pauseAt; ++i) {
        Map<?, ?> r = (Map<?, ?>) Json.parse(recorded.get(i));
        String[] p = pts[i].split(",");
        assertEquals(((Number) r.get("iteration")).longValue(), Long.parseLong(p[0]));
        assertEquals(((Number) r.get("score")).doubleValue(), Double.parseDouble(p[1]), "point " + i);
      }
      assertEquals(String.valueOf(pauseAt), attribute(dom, "<svg id=\"chart-score\"", "data-n"));
      // The polyline has as many vertices as points.
      assertEquals(pauseAt, attribute(dom, "<polyline", "points").trim().split(" ").length);

      // The layer table: one row per layer of the model, with its name, type and parameter count.
      int layers = net.configuration().layers().size();
      for (int i = 0; i < layers; ++i) {
        int row = dom.indexOf("<tr data-layer=\"" + i + "\">");
        assertTrue(row >= 0, "no table row for layer " + i);
        String tr = dom.substring(row, dom.indexOf("</tr>", row));
        assertEquals(net.configuration().layers().get(i).getClass().getSimpleName(), cell(tr, "type"));
        assertEquals(String.valueOf(net.numParams(i)), cell(tr, "params"));
        String name = net.configuration().layers().get(i).name();
        assertEquals(name != null ? name : "layer" + i, cell(tr, "name"));
        if (net.numParams(i) > 0) {  // the summaries of iteration 8 are shown
          assertTrue(!cell(tr, "pnorm").equals("–") && !cell(tr, "ratio").equals("–"), tr);
        }
      }
      assertTrue(dom.indexOf("<tr data-layer=\"" + layers + "\">") < 0, "no extra rows");
      // The profiled step (iteration 5) lists ops.
      assertTrue(dom.contains("(iteration 5, step"), "the profile table shows iteration 5");
    }
  }

  static String cell(String tr, String cls) {
    Matcher m = Pattern.compile("<td class=\"" + cls + "\">([^<]*)</td>").matcher(tr);
    assertTrue(m.find(), "no cell " + cls + " in " + tr);
    return m.group(1);
  }
}
