package org.ndrt.nd4j.probes;

import java.util.Arrays;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.activations.IActivation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.api.ops.impl.reduce.floating.Norm2;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarAdd;
import org.nd4j.linalg.api.ops.impl.scalar.ScalarMultiplication;
import org.nd4j.linalg.api.ops.impl.transforms.custom.SoftMax;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Exp;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Sigmoid;
import org.nd4j.linalg.api.ops.impl.transforms.strict.Tanh;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.Nesterovs;
import org.nd4j.linalg.learning.config.RmsProp;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.lossfunctions.ILossFunction;
import org.nd4j.linalg.lossfunctions.LossFunctions.LossFunction;
import org.nd4j.linalg.lossfunctions.impl.LossMCXENT;
import org.nd4j.linalg.ops.transforms.Transforms;
import org.nd4j.linalg.schedule.ExponentialSchedule;
import org.nd4j.linalg.schedule.MapSchedule;
import org.nd4j.linalg.schedule.ScheduleType;
import org.nd4j.linalg.schedule.StepSchedule;

/**
 * Activations forward and backward, losses (score, per-example scores, gradient; weights and masks),
 * the common legacy ops through the executioner, updater configurations and schedules, on fixed
 * inputs. Compared between real ND4J and ndrt-nd4j by tests/compare_probes.sh.
 */
public class LossActivationProbe {
  static void show(String what, INDArray a) {
    System.out.println(what + " " + a.dataType() + " " + Arrays.toString(a.shape()));
    System.out.println(a);
  }

  public static void main(String[] args) {
    INDArray z = Transforms.sin(Nd4j.linspace(1, 12, 12).reshape(3, 4)).mul(2);
    INDArray eps = Transforms.cos(Nd4j.linspace(1, 12, 12).reshape(3, 4));
    for (Activation a : new Activation[] {Activation.IDENTITY, Activation.RELU, Activation.LEAKYRELU, Activation.TANH,
        Activation.SIGMOID, Activation.SOFTMAX, Activation.ELU, Activation.SOFTPLUS}) {
      IActivation f = a.getActivationFunction();
      System.out.println(a + " = " + f);
      show("  forward", f.getActivation(z.dup(), true));
      show("  backward", f.backprop(z.dup(), eps.dup()).getFirst());
    }

    INDArray labels = Nd4j.create(new float[][] {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 1}});
    INDArray reg = Transforms.sigmoid(Nd4j.linspace(-3, 3, 12).reshape(3, 4));
    INDArray weights = Nd4j.create(new float[] {1, 2, 0.5f, 1});
    INDArray mask = Nd4j.create(new float[] {1, 0, 1}, 3, 1);
    Object[][] cases = {
        {LossFunction.MCXENT, Activation.SOFTMAX, labels},
        {LossFunction.NEGATIVELOGLIKELIHOOD, Activation.SOFTMAX, labels},
        {LossFunction.MCXENT, Activation.SIGMOID, labels},
        {LossFunction.XENT, Activation.SIGMOID, labels},
        {LossFunction.MSE, Activation.IDENTITY, reg},
        {LossFunction.MSE, Activation.TANH, reg},
        {LossFunction.L2, Activation.IDENTITY, reg},
        {LossFunction.L1, Activation.IDENTITY, reg},
        {LossFunction.MEAN_ABSOLUTE_ERROR, Activation.IDENTITY, reg},
        {LossFunction.SQUARED_LOSS, Activation.IDENTITY, reg},
    };
    for (Object[] c : cases) {
      ILossFunction loss = ((LossFunction) c[0]).getILossFunction();
      IActivation act = ((Activation) c[1]).getActivationFunction();
      INDArray y = (INDArray) c[2];
      System.out.println(c[0] + " " + loss.name() + " with " + act);
      System.out.println("  score avg " + loss.computeScore(y, z.dup(), act, null, true) + " sum "
          + loss.computeScore(y, z.dup(), act, null, false) + " masked " + loss.computeScore(y, z.dup(), act, mask, true));
      show("  per example", loss.computeScoreArray(y, z.dup(), act, null));
      show("  gradient", loss.computeGradient(y, z.dup(), act, null));
      show("  gradient masked", loss.computeGradient(y, z.dup(), act, mask));
    }
    LossMCXENT weighted = new LossMCXENT(weights);
    IActivation softmax = Activation.SOFTMAX.getActivationFunction();
    System.out.println("weighted mcxent " + weighted.computeScore(labels, z.dup(), softmax, null, true));
    show("weighted mcxent grad", weighted.computeGradient(labels, z.dup(), softmax, null));

    show("exec Tanh", Nd4j.getExecutioner().exec(new Tanh(z.dup())));
    show("exec Sigmoid", Nd4j.getExecutioner().exec(new Sigmoid(z.dup())));
    show("exec Exp", Nd4j.getExecutioner().exec(new Exp(z.dup())));
    show("exec SoftMax", Nd4j.exec(new SoftMax(z.dup()))[0]);
    INDArray s = z.dup();
    Nd4j.getExecutioner().exec(new ScalarAdd(s, 1.5));
    show("exec ScalarAdd in place", s);
    show("exec ScalarMultiplication", Nd4j.getExecutioner().exec(new ScalarMultiplication(z.dup(), 3)));
    show("exec Norm2 dim 1", Nd4j.getExecutioner().exec(new Norm2(z, 1)));

    System.out.println(new Sgd(0.05));
    System.out.println(new Adam());
    System.out.println(new Adam(0.01, 0.8, 0.99, 1e-7));
    System.out.println(new Nesterovs(0.1, 0.95));
    System.out.println(new RmsProp(0.02));
    System.out.println("state " + new Adam().stateSize(10) + " " + new Nesterovs().stateSize(10) + " "
        + new Sgd().stateSize(10));
    MapSchedule map = new MapSchedule.Builder(ScheduleType.ITERATION).add(0, 0.1).add(5, 0.05).add(10, 0.01).build();
    ExponentialSchedule exp = new ExponentialSchedule(ScheduleType.EPOCH, 0.1, 0.9);
    StepSchedule step = new StepSchedule(ScheduleType.ITERATION, 0.1, 0.5, 4);
    Adam scheduled = new Adam(map);
    for (int i : new int[] {0, 3, 5, 9, 10, 20}) {
      System.out.println("schedule " + i + " map " + map.valueAt(i, 0) + " exp " + exp.valueAt(0, i) + " step "
          + step.valueAt(i, 0) + " adam " + scheduled.getLearningRate(i, 0));
    }
    System.out.println("dtype " + z.dataType() + " " + DataType.FLOAT);
  }
}
