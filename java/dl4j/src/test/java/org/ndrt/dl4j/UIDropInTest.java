package org.ndrt.dl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.core.storage.StatsStorage;
import org.deeplearning4j.core.storage.StatsStorageRouter;
import org.deeplearning4j.core.storage.impl.RemoteUIStatsStorageRouter;
import org.deeplearning4j.nn.conf.MultiLayerConfiguration;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.multilayer.MultiLayerNetwork;
import org.deeplearning4j.nn.weights.WeightInit;
import org.deeplearning4j.optimize.listeners.CollectScoresIterationListener;
import org.deeplearning4j.ui.api.UIServer;
import org.deeplearning4j.ui.model.stats.StatsListener;
import org.deeplearning4j.ui.model.storage.FileStatsStorage;
import org.deeplearning4j.ui.model.storage.InMemoryStatsStorage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.ndrt.nn.conf.Json;

/** Deeplearning4j's UI classes as its examples use them (BasicUIExample, UIStorageExample, RemoteUIExample). */
class UIDropInTest {
  @AfterEach
  void stop() {
    UIServer.stopInstance();
    System.clearProperty(UIServer.PORT_PROPERTY);
  }

  private static MultiLayerNetwork net() {
    MultiLayerConfiguration conf = new NeuralNetConfiguration.Builder().seed(4).updater(new Adam(0.01))
        .weightInit(WeightInit.XAVIER).list()
        .layer(new DenseLayer.Builder().nIn(5).nOut(7).activation(Activation.RELU).build())
        .layer(new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT).nOut(2).activation(Activation.SOFTMAX).build())
        .setInputType(InputType.feedForward(5)).build();
    MultiLayerNetwork n = new MultiLayerNetwork(conf);
    n.init();
    return n;
  }

  private static DataSet data() {
    Nd4j.getRandom().setSeed(9);
    INDArray x = Nd4j.rand(new int[] {12, 5}).subi(0.5);
    INDArray y = Nd4j.zeros(12, 2);
    for (int i = 0; i < 12; ++i) {
      y.putScalar(i, i % 2, 1.0);
    }
    return new DataSet(x, y);
  }

  private static String get(String url) throws IOException {
    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    assertEquals(200, c.getResponseCode(), url);
    try (var in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static double num(Object o) {
    return ((Number) o).doubleValue();
  }

  @Test
  void fileStatsStorageShowsTheRunAndReopens(@TempDir Path dir) throws IOException {
    System.setProperty(UIServer.PORT_PROPERTY, "0");  // any free port: tests must not depend on 9000 being free
    UIServer ui = UIServer.getInstance();
    assertTrue(ui.getAddress().startsWith("http://127.0.0.1:"), ui.getAddress());
    File f = dir.resolve("ui-stats.dl4j").toFile();
    StatsStorage storage = new FileStatsStorage(f);
    MultiLayerNetwork n = net();
    CollectScoresIterationListener scores = new CollectScoresIterationListener(1);
    StatsListener stats = new StatsListener(storage, 1);
    n.setListeners(stats, scores);
    ui.attach(storage);
    assertTrue(ui.isAttached(storage));
    DataSet ds = data();
    for (int i = 0; i < 5; ++i) {
      n.fit(ds);
    }
    String base = ui.getAddress().replace("/train", "");
    Map<?, ?> sessions = (Map<?, ?>) Json.parse(get(base + "/api/sessions"));
    Map<?, ?> s = (Map<?, ?>) ((List<?>) sessions.get("sessions")).get(0);
    assertEquals(stats.getSessionID(), s.get("id"));
    assertEquals(5.0, num(s.get("updates")));
    Map<?, ?> info = (Map<?, ?>) ((List<?>) s.get("static")).get(0);
    assertEquals(2, ((List<?>) info.get("layers")).size());
    assertEquals((double) n.numParams(), num(info.get("numParams")));
    Map<?, ?> u = (Map<?, ?>) Json.parse(get(base + "/api/updates?session=" + stats.getSessionID()));
    List<?> ups = (List<?>) u.get("updates");
    List<Double> recorded = new ArrayList<>();
    for (Object o : ups) {
      recorded.add(num(((Map<?, ?>) o).get("score")));
    }
    double[] expected = scores.getScoreVsIter().stream().mapToDouble(p -> p.getSecond()).toArray();
    assertEquals(5, expected.length);
    for (int i = 0; i < 5; ++i) {
      assertEquals(expected[i], recorded.get(i), 1e-12);
    }
    storage.close();
    // UIStorageExample's second run: the file reopened and attached shows the same records.
    StatsStorage again = new FileStatsStorage(f);
    assertEquals(storage.updates(stats.getSessionID(), 0, 100), again.updates(stats.getSessionID(), 0, 100));
    again.close();
  }

  @Test
  void remoteRouterPostsToTheServer() {
    System.setProperty(UIServer.PORT_PROPERTY, "0");
    UIServer ui = UIServer.getInstance();
    ui.enableRemoteListener();
    assertTrue(ui.isRemoteListenerEnabled());
    StatsStorageRouter remote = new RemoteUIStatsStorageRouter("http://localhost:" + ui.getPort());
    MultiLayerNetwork n = net();
    StatsListener stats = new StatsListener(remote);
    n.setListeners(stats);
    DataSet ds = data();
    for (int i = 0; i < 3; ++i) {
      n.fit(ds);
    }
    ((RemoteUIStatsStorageRouter) remote).close();
    org.ndrt.ui.StatsStorage target = ui.getStatsStorageInstances().get(0);
    assertEquals(List.of(stats.getSessionID()), target.sessions());
    assertEquals(3, target.updateCount(stats.getSessionID()));
    assertEquals(1, target.staticInfo(stats.getSessionID()).size());
  }

  @Test
  void enableRemoteListenerNeedsAStorage() {
    System.setProperty(UIServer.PORT_PROPERTY, "0");
    UIServer ui = UIServer.getInstance();
    assertThrows(IllegalArgumentException.class,
        () -> ui.enableRemoteListener(new RemoteUIStatsStorageRouter("http://localhost:1"), true));
    InMemoryStatsStorage s = new InMemoryStatsStorage();
    ui.enableRemoteListener(s, false);
    assertTrue(ui.isRemoteListenerEnabled());
    assertTrue(!ui.isAttached(s));
    System.setProperty(UIServer.PORT_PROPERTY, "x");
    UIServer.stopInstance();
    assertThrows(IllegalArgumentException.class, UIServer::getInstance);
  }
}
