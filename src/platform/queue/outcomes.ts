// What the leased-queue workers report of each job, for the app's metrics: webhook deliveries and mail.

/** What became of one delivery attempt (the stored status in brackets). */
export type DeliveryOutcome =
  /** 2xx (succeeded). */
  | 'delivered'
  /** Failed, tried again later (stays pending). */
  | 'retrying'
  /** Failed at the end of the retry window (failed). */
  | 'gave_up'
  /** Not sent: its endpoint was disabled meanwhile (failed). */
  | 'abandoned';

/** Where the worker counts outcomes (the app's metrics). */
export interface DeliveryMetrics {
  webhookDelivery(outcome: DeliveryOutcome): void;
}

/** What became of one send of a mail (the stored status in brackets). */
export type EmailOutcome =
  /** Accepted by the SMTP server (sent). */
  | 'sent'
  /** Failed, tried again later (stays pending). */
  | 'retrying'
  /** Failed at the end of the retry window (failed). */
  | 'gave_up'
  /** Refused for good by the server (a 5xx to the envelope or the data): not retried (failed). */
  | 'refused';

/** Where the worker counts outcomes (the app's metrics). */
export interface MailMetrics {
  email(outcome: EmailOutcome): void;
}
