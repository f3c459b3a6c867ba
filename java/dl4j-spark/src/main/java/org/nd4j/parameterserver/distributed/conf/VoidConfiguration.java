package org.nd4j.parameterserver.distributed.conf;

import java.io.Serializable;
import org.nd4j.parameterserver.distributed.v2.enums.MeshBuildMode;

/**
 * The network settings of Deeplearning4j's gradient-sharing transport (Aeron: a UDP port, the network mask
 * naming the interface, the controller's address). ndrt's SharedTrainingMaster does not use them: its
 * workers find each other through Spark's barrier execution and connect over TCP on ports the system
 * gives them, on the addresses Spark runs their tasks at. Kept so programs configuring them compile and
 * run; the values are readable with the getters.
 */
public class VoidConfiguration implements Serializable {
  private static final long serialVersionUID = 1L;
  private int unicastPort = 40123;
  private String networkMask;
  private String controllerAddress;
  private MeshBuildMode meshBuildMode = MeshBuildMode.MESH;

  public static Builder builder() {
    return new Builder();
  }

  public int getUnicastPort() {
    return unicastPort;
  }

  public String getNetworkMask() {
    return networkMask;
  }

  public String getControllerAddress() {
    return controllerAddress;
  }

  public MeshBuildMode getMeshBuildMode() {
    return meshBuildMode;
  }

  public static class Builder {
    private final VoidConfiguration c = new VoidConfiguration();

    public Builder unicastPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("unicastPort: " + port + " is not a port number");
      }
      c.unicastPort = port;
      return this;
    }

    public Builder networkMask(String mask) {
      c.networkMask = mask;
      return this;
    }

    public Builder controllerAddress(String address) {
      c.controllerAddress = address;
      return this;
    }

    public Builder meshBuildMode(MeshBuildMode mode) {
      c.meshBuildMode = mode;
      return this;
    }

    public VoidConfiguration build() {
      return c;
    }
  }
}
