/** Deleting a test file's registry subjects: an `afterAll` courtesy to the shared registry. */

/** Soft-deletes, then hard-deletes, every subject of `url` that starts with `prefix`. */
export async function dropSubjects(url: string, prefix: string): Promise<void> {
  // Apicurio lists 1000 subjects unless told otherwise, which left later namespaces behind.
  const subjects = (await (await fetch(`${url}/subjects?limit=1000000`)).json()) as string[];
  for (const subject of subjects.filter((s) => s.startsWith(prefix))) {
    const name = encodeURIComponent(subject);
    await fetch(`${url}/subjects/${name}`, { method: 'DELETE' });
    await fetch(`${url}/subjects/${name}?permanent=true`, { method: 'DELETE' });
  }
}
