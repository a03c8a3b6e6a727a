/** The activity service: the cross-resource activity feed (spec part 4, "GET /activity"). */
export {};
