package org.deeplearning4j.nn.conf;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.learning.config.IUpdater;
import org.ndrt.dl4j.ConfJson;
import org.ndrt.dl4j.Dl4jJson;

/**
 * Deeplearning4j's network configuration: one {@link NeuralNetConfiguration} per layer (its layer with
 * the network-wide settings filled in), the input type and backpropagation settings. {@link #toJson()}
 * writes Deeplearning4j 1.0.0-M2.1's JSON (nIn and preprocessors as its list builder sets them, from
 * the input type) and {@link #fromJson} reads it (org.ndrt.dl4j.Dl4jJson).
 */
public class MultiLayerConfiguration implements Serializable, Cloneable {
  /**
   * What NeuralNetConfiguration.Builder#list() gives (its ListBuilder), under the type Deeplearning4j
   * programs declare it as ({@code MultiLayerConfiguration.Builder builder = ...list()...}).
   */
  public abstract static class Builder {
    public abstract Builder setInputType(InputType inputType);

    public abstract MultiLayerConfiguration build();
  }

  private static final long serialVersionUID = 1L;

  protected List<NeuralNetConfiguration> confs = new ArrayList<>();
  protected InputType inputType;
  protected List<InputPreProcessor> inputPreProcessors = new ArrayList<>();
  /**
   * The preprocessors a configuration read from Deeplearning4j's JSON had where org.ndrt.nn reshapes by
   * itself (kept to write them back; null: infer them from the input type).
   */
  protected List<InputPreProcessor> impliedPreProcessors;
  protected BackpropType backpropType = BackpropType.Standard;
  protected int tbpttFwdLength = 20;
  protected int tbpttBackLength = 20;
  protected IUpdater iUpdater;
  protected double l2;
  protected double weightDecay;
  protected DataType dataType = DataType.FLOAT;
  protected int epochCount;
  protected int iterationCount;

  protected MultiLayerConfiguration() {}

  public List<NeuralNetConfiguration> getConfs() {
    return confs;
  }

  public NeuralNetConfiguration getConf(int i) {
    return confs.get(i);
  }

  public InputType getInputType() {
    return inputType;
  }

  /** The explicit preprocessor before layer {@code i} (null: none). */
  public InputPreProcessor getInputPreProcess(int i) {
    return i < inputPreProcessors.size() ? inputPreProcessors.get(i) : null;
  }

  public List<InputPreProcessor> getInputPreProcessors() {
    return inputPreProcessors;
  }

  public BackpropType getBackpropType() {
    return backpropType;
  }

  public int getTbpttFwdLength() {
    return tbpttFwdLength;
  }

  public int getTbpttBackLength() {
    return tbpttBackLength;
  }

  /** The network-wide updater (each layer's own is {@code getConf(i).getLayer()}'s). */
  public IUpdater getIUpdater() {
    return iUpdater;
  }

  public double getL2() {
    return l2;
  }

  public double getWeightDecay() {
    return weightDecay;
  }

  public DataType getDataType() {
    return dataType;
  }

  public int getEpochCount() {
    return epochCount;
  }

  public void setEpochCount(int epochCount) {
    this.epochCount = epochCount;
  }

  public int getIterationCount() {
    return iterationCount;
  }

  public void setIterationCount(int iterationCount) {
    this.iterationCount = iterationCount;
  }

  /** Deeplearning4j's JSON of this configuration (what its MultiLayerConfiguration.toJson writes). */
  public String toJson() {
    return Dl4jJson.write(this);
  }

  /** Deeplearning4j's YAML form is not written by ndrt: use {@link #toJson()}. */
  public String toYaml() {
    throw new UnsupportedOperationException("MultiLayerConfiguration.toYaml: ndrt's Deeplearning4j drop-in writes JSON "
        + "only (toJson)");
  }

  /**
   * Reads Deeplearning4j's JSON (its toJson's or {@link #toJson()}'s), and the drop-in's earlier field
   * JSON (a top-level "@class"). A class the drop-in does not have is an IllegalArgumentException naming it.
   */
  public static MultiLayerConfiguration fromJson(String json) {
    return Dl4jJson.read(json);
  }

  /** Deeplearning4j's YAML form is not read by ndrt. */
  public static MultiLayerConfiguration fromYaml(String yaml) {
    throw new UnsupportedOperationException("MultiLayerConfiguration.fromYaml: ndrt's Deeplearning4j drop-in reads JSON "
        + "only (fromJson)");
  }

  /** ndrt: org.ndrt.nn's configuration of this network (refusing by name what org.ndrt.nn lacks). */
  public org.ndrt.nn.conf.MultiLayerConfiguration toNdrt() {
    return org.ndrt.dl4j.Translator.translate(this).conf;
  }

  @Override
  public MultiLayerConfiguration clone() {
    return ConfJson.read(ConfJson.write(this), MultiLayerConfiguration.class); // every field, input type included
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MultiLayerConfiguration && toJson().equals(((MultiLayerConfiguration) o).toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson();
  }
}
