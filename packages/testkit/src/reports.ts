/**
 * Reports as mailbox providers send them, for tests: a delivery status notification (RFC 3464)
 * and an abuse report (RFC 5965, ARF) about an email of Stamp's.
 */

/** A DSN of `recipient` with `status` (for example `5.1.1` or `4.2.2`), sent to `to`. */
export function dsnReport(to: string, recipient: string, status: string): string {
  const action = status.startsWith('5.') ? 'failed' : 'delayed';
  return [
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.org>',
    `To: ${to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Date: Tue, 24 Nov 2026 10:00:00 +0000',
    'Message-ID: <dsn-1@mx.example.org>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="REPORT"',
    '',
    '--REPORT',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.example.org. Your message could not be delivered.',
    '',
    '--REPORT',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.org',
    'Arrival-Date: Tue, 24 Nov 2026 09:59:58 +0000',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Original-Recipient: rfc822;${recipient}`,
    `Action: ${action}`,
    `Status: ${status}`,
    'Remote-MTA: dns; mailbox.example.org',
    `Diagnostic-Code: smtp; ${status.startsWith('5.') ? '550' : '452'} ${status} <${recipient}>:`,
    '    Recipient address rejected',
    '',
    '--REPORT',
    'Content-Type: text/rfc822-headers',
    '',
    'From: news@example.com',
    `To: ${recipient}`,
    'Subject: Hello',
    '',
    '--REPORT--',
    '',
  ].join('\r\n');
}

/** An ARF report of `feedbackType` about an email to `recipient`, sent to `to`. */
export function arfReport(to: string, recipient: string, feedbackType = 'abuse'): string {
  return [
    'From: Feedback Loop <fbl@isp.example.net>',
    `To: ${to}`,
    'Subject: FW: Hello',
    'Date: Tue, 24 Nov 2026 11:00:00 +0000',
    'Message-ID: <arf-1@isp.example.net>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF"',
    '',
    '--ARF',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    '--ARF',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${feedbackType}`,
    'User-Agent: ExampleFBL/1.0',
    'Version: 1',
    `Original-Rcpt-To: ${recipient}`,
    'Arrival-Date: Tue, 24 Nov 2026 10:30:00 +0000',
    '',
    '--ARF',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    'From: news@example.com',
    `To: ${recipient}`,
    'Subject: Hello',
    '',
    'Hello there',
    '',
    '--ARF--',
    '',
  ].join('\r\n');
}
