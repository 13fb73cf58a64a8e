import type * as vscode from 'vscode';
import { Emitter } from '../../core/events';
import { DEFAULT_PROFILE, newProfile, type Profile } from '../../core/session/profiles';
import type { GpuRentalState } from '../../core/stored';
import { config } from './config';

/**
 * The profiles (accounts) GPU Rental knows, in global state: names and base URLs only, never a
 * key (keys are in SecretStorage, one slot per profile). The default profile is not stored: it
 * always exists and follows the `gpuRental.apiUrl` setting.
 */
export class Profiles implements vscode.Disposable {
  private readonly changed = new Emitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly state: GpuRentalState) {}

  /** The default profile first, then the added ones in the order they were added. */
  list(): Profile[] {
    return [DEFAULT_PROFILE, ...this.added()];
  }

  get(id: string | undefined): Profile | undefined {
    return this.list().find((p) => p.id === id);
  }

  /** The base URL a profile uses now. */
  baseUrl(profile: Profile): string {
    return profile.baseUrl ?? config.apiUrl();
  }

  /** The profile chosen last, in any window: new windows start with it. */
  last(): Profile {
    return this.get(this.state.get('activeProfile')) ?? DEFAULT_PROFILE;
  }

  async setLast(id: string): Promise<void> {
    await this.state.update('activeProfile', id);
  }

  /** Checks and stores a new profile; throws with a readable message when the name or URL is unusable. */
  async add(name: string, baseUrl: string): Promise<Profile> {
    const profile = newProfile(name, baseUrl, this.list());
    await this.state.update('profiles', [...this.added(), profile]);
    this.changed.fire();
    return profile;
  }

  async remove(id: string): Promise<void> {
    await this.state.update(
      'profiles',
      this.added().filter((p) => p.id !== id),
    );
    if (this.state.get('activeProfile') === id) await this.state.update('activeProfile', undefined);
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }

  private added(): Profile[] {
    return this.state.get('profiles');
  }
}
