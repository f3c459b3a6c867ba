package org.nd4j.parameterserver.distributed.v2.enums;

/** How Deeplearning4j's parameter server connects its nodes; ndrt's gradient sharing ignores it (a TCP ring). */
public enum MeshBuildMode {
  PLAIN, MESH
}
