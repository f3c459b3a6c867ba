package org.deeplearning4j.nn.workspace;

/**
 * Deeplearning4j's workspace manager. ndrt has no workspaces (tensors are reference counted), so the
 * only manager is the one without workspaces.
 */
public final class LayerWorkspaceMgr {
  private static final LayerWorkspaceMgr NONE = new LayerWorkspaceMgr();

  private LayerWorkspaceMgr() {}

  public static LayerWorkspaceMgr noWorkspaces() {
    return NONE;
  }

  public static LayerWorkspaceMgr noWorkspacesImmutable() {
    return NONE;
  }
}
