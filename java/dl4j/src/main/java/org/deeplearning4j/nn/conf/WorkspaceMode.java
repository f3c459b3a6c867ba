package org.deeplearning4j.nn.conf;

/** Accepted and ignored: ndrt has no workspaces (tensors are reference counted and freed when closed). */
public enum WorkspaceMode {
  NONE, ENABLED, SINGLE, SEPARATE
}
