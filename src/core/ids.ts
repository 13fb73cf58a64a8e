/**
 * Every id the extension contributes, in one place. A unit test checks these lists against
 * package.json, so a command cannot be declared without being registered, or the other way round.
 */
export const COMMANDS = {
  setApiKey: 'gpuRental.setApiKey',
  signOut: 'gpuRental.signOut',
  refresh: 'gpuRental.refresh',
  showLogs: 'gpuRental.showLogs',
  openWalkthrough: 'gpuRental.openWalkthrough',
  searchOffers: 'gpuRental.searchOffers',
  clearOfferFilters: 'gpuRental.clearOfferFilters',
  sortOffers: 'gpuRental.sortOffers',
  loadMoreOffers: 'gpuRental.loadMoreOffers',
  rentOffer: 'gpuRental.rentOffer',
  rentBestMatch: 'gpuRental.rentBestMatch',
  rentCluster: 'gpuRental.rentCluster',
  openOfferExplorer: 'gpuRental.openOfferExplorer',
  saveSearch: 'gpuRental.saveSearch',
  showSavedSearches: 'gpuRental.showSavedSearches',
  watchSearch: 'gpuRental.watchSearch',
  stopWatchingSearch: 'gpuRental.stopWatchingSearch',
  checkWatchedSearches: 'gpuRental.checkWatchedSearches',
  startInstance: 'gpuRental.startInstance',
  stopInstance: 'gpuRental.stopInstance',
  rebootInstance: 'gpuRental.rebootInstance',
  destroyInstance: 'gpuRental.destroyInstance',
  /** Stop, Start and Destroy on a cluster row of the Instances view: every node, one confirmation. */
  startCluster: 'gpuRental.startCluster',
  stopCluster: 'gpuRental.stopCluster',
  destroyCluster: 'gpuRental.destroyCluster',
  changeBid: 'gpuRental.changeBid',
  moveToOnDemand: 'gpuRental.moveToOnDemand',
  acceptPriceIncrease: 'gpuRental.acceptPriceIncrease',
  rejectPriceIncrease: 'gpuRental.rejectPriceIncrease',
  rentLikeElsewhere: 'gpuRental.rentLikeElsewhere',
  reserveInstance: 'gpuRental.reserveInstance',
  labelInstance: 'gpuRental.labelInstance',
  showInstanceLogs: 'gpuRental.showInstanceLogs',
  followInstanceLogs: 'gpuRental.followInstanceLogs',
  stopThisInstance: 'gpuRental.stopThisInstance',
  destroyThisInstance: 'gpuRental.destroyThisInstance',
  forwardPortOnThisInstance: 'gpuRental.forwardPortOnThisInstance',
  openJupyterOnThisInstance: 'gpuRental.openJupyterOnThisInstance',
  showThisInstanceCost: 'gpuRental.showThisInstanceCost',
  copySshCommand: 'gpuRental.copySshCommand',
  uploadFolder: 'gpuRental.uploadFolder',
  downloadFromInstance: 'gpuRental.downloadFromInstance',
  copyBetweenInstances: 'gpuRental.copyBetweenInstances',
  cloudSync: 'gpuRental.cloudSync',
  connect: 'gpuRental.connect',
  openSshTerminal: 'gpuRental.openSshTerminal',
  forwardPort: 'gpuRental.forwardPort',
  openJupyter: 'gpuRental.openJupyter',
  openInBrowser: 'gpuRental.openInBrowser',
  closeBrowserWorkspace: 'gpuRental.closeBrowserWorkspace',
  checkMachineHealth: 'gpuRental.checkMachineHealth',
  showAccount: 'gpuRental.showAccount',
  showBilling: 'gpuRental.showBilling',
  exportSpend: 'gpuRental.exportSpend',
  showSpendChart: 'gpuRental.showSpendChart',
  saveAsTemplate: 'gpuRental.saveAsTemplate',
  searchTemplates: 'gpuRental.searchTemplates',
  editTemplate: 'gpuRental.editTemplate',
  deleteTemplate: 'gpuRental.deleteTemplate',
  rentWithTemplate: 'gpuRental.rentWithTemplate',
  createVolume: 'gpuRental.createVolume',
  deleteVolume: 'gpuRental.deleteVolume',
  createEndpoint: 'gpuRental.createEndpoint',
  updateEndpoint: 'gpuRental.updateEndpoint',
  deleteEndpoint: 'gpuRental.deleteEndpoint',
  createWorkerGroup: 'gpuRental.createWorkerGroup',
  updateWorkerGroup: 'gpuRental.updateWorkerGroup',
  deleteWorkerGroup: 'gpuRental.deleteWorkerGroup',
  showServerlessWorkers: 'gpuRental.showServerlessWorkers',
  showServerlessLogs: 'gpuRental.showServerlessLogs',
  inviteTeamMember: 'gpuRental.inviteTeamMember',
  removeTeamMember: 'gpuRental.removeTeamMember',
  saveTeamRole: 'gpuRental.saveTeamRole',
  deleteTeamRole: 'gpuRental.deleteTeamRole',
  createApiKey: 'gpuRental.createApiKey',
  deleteApiKey: 'gpuRental.deleteApiKey',
  addSshKey: 'gpuRental.addSshKey',
  deleteSshKey: 'gpuRental.deleteSshKey',
  attachSshKey: 'gpuRental.attachSshKey',
  detachSshKey: 'gpuRental.detachSshKey',
  addSecret: 'gpuRental.addSecret',
  changeSecret: 'gpuRental.changeSecret',
  deleteSecret: 'gpuRental.deleteSecret',
  /** Notify Me Away from VS Code: a webhook for the account's notifications, and managing the account's webhooks. */
  notifySetUp: 'gpuRental.notify.setUp',
  notifyManage: 'gpuRental.notify.manage',
  switchProfile: 'gpuRental.switchProfile',
  addProfile: 'gpuRental.addProfile',
  removeProfile: 'gpuRental.removeProfile',
  runJob: 'gpuRental.runJob',
  runLastJob: 'gpuRental.runLastJob',
  stopJob: 'gpuRental.stopJob',
  changeOutbidPolicy: 'gpuRental.changeOutbidPolicy',
  showJobOutput: 'gpuRental.showJobOutput',
  downloadJobOutputs: 'gpuRental.downloadJobOutputs',
  runOnCluster: 'gpuRental.runOnCluster',
  switchClusterRank: 'gpuRental.switchClusterRank',
  checkCluster: 'gpuRental.checkCluster',
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
export const COMMAND_IDS: readonly CommandId[] = Object.values(COMMANDS);

/** The Offer Explorer's webview panel type (its serializer restores it after a reload). */
export const EXPLORER_VIEW_TYPE = 'gpuRental.offerExplorer';

export const VIEWS = {
  container: 'gpuRental',
  instances: 'gpuRental.instances',
  offers: 'gpuRental.offers',
  account: 'gpuRental.account',
} as const;

export const SETTINGS = {
  apiUrl: 'gpuRental.apiUrl',
  pollIntervalSeconds: 'gpuRental.pollIntervalSeconds',
  remoteFolder: 'gpuRental.remoteFolder',
  syncExclude: 'gpuRental.sync.exclude',
  sshIdentityFile: 'gpuRental.ssh.identityFile',
  sshConnectVia: 'gpuRental.ssh.connectVia',
  sshReadyTimeoutSeconds: 'gpuRental.ssh.readyTimeoutSeconds',
  maxHourlySpend: 'gpuRental.maxHourlySpend',
  rentFailoverAttempts: 'gpuRental.rent.failoverAttempts',
  watchIntervalMinutes: 'gpuRental.watch.intervalMinutes',
  lowCreditHours: 'gpuRental.lowCredit.hours',
  lowCreditAmount: 'gpuRental.lowCredit.amount',
  idleStopEnabled: 'gpuRental.idleStop.enabled',
  idleStopMinutes: 'gpuRental.idleStop.minutes',
  idleGpuThreshold: 'gpuRental.idleStop.gpuThreshold',
  idleCountdownSeconds: 'gpuRental.idleStop.countdownSeconds',
  healthCheckAfterRent: 'gpuRental.health.checkAfterRent',
  healthSpeedTestUrl: 'gpuRental.health.speedTestUrl',
  browserWorkspaceVersion: 'gpuRental.browserWorkspace.version',
  browserWorkspaceDownloadUrl: 'gpuRental.browserWorkspace.downloadUrl',
  browserWorkspaceChecksumUrl: 'gpuRental.browserWorkspace.checksumUrl',
  browserWorkspaceSha256: 'gpuRental.browserWorkspace.sha256',
  contractEndNoticeDays: 'gpuRental.contractEndNoticeDays',
} as const;

/** Context keys that `when` clauses in package.json read. */
export const CONTEXT = {
  /** The session's state kind: noKey, checking, ready, rejected or unreachable. */
  state: 'gpuRental.state',
  /** In a Remote-SSH window on one of the account's instances: its phase (running, stopped ...); unset elsewhere (src/ui/status/remoteWindow.ts). */
  remoteInstance: 'gpuRental.remoteInstance',
  /** In such a window, whether the instance was launched with Jupyter. */
  remoteInstanceJupyter: 'gpuRental.remoteInstanceJupyter',
  /** The Get Started walkthrough's steps done by the real action (src/ui/host/walkthrough.ts): set once true, never reset. */
  offersListed: 'gpuRental.walkthrough.offersListed',
  rented: 'gpuRental.walkthrough.rented',
  stopped: 'gpuRental.walkthrough.stopped',
} as const;

/** Set by `npm start` and automation: a key imported into SecretStorage once, when none is stored. */
export const API_KEY_ENV = 'GPU_RENTAL_API_KEY';

/**
 * The language model tools (package.json `contributes.languageModelTools`): what an agent in chat
 * may call. Their input schemas and result text are core/agent/; ui/agent/ registers them.
 */
export const TOOLS = {
  searchOffers: 'gpuRental_searchOffers',
  listInstances: 'gpuRental_listInstances',
  jobOutput: 'gpuRental_jobOutput',
  checkHealth: 'gpuRental_checkHealth',
  account: 'gpuRental_account',
  rentOffer: 'gpuRental_rentOffer',
  rentBestMatch: 'gpuRental_rentBestMatch',
  stopInstance: 'gpuRental_stopInstance',
  startInstance: 'gpuRental_startInstance',
  destroyInstance: 'gpuRental_destroyInstance',
  uploadFolder: 'gpuRental_uploadFolder',
  runJob: 'gpuRental_runJob',
} as const;

export type ToolName = (typeof TOOLS)[keyof typeof TOOLS];
export const TOOL_NAMES: readonly ToolName[] = Object.values(TOOLS);
