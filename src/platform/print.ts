/**
 * Opens the browser's print dialog (A4, or "Save as PDF") with `fileName` as the document title for the
 * time of the dialog: Chromium proposes the title as the PDF's file name.
 */
export function printDocument(fileName: string): void {
  const previous = document.title;
  document.title = fileName;
  try {
    window.print();
  } finally {
    document.title = previous;
  }
}

/** The file name of a printed examinee report: `examinee_report_{login id}_{yyyyMMddHHmmss}`. */
export function reportFileName(loginId: string, stamp: string): string {
  return `examinee_report_${loginId.replace(/[^A-Za-z0-9_-]/g, '_')}_${stamp}`;
}
